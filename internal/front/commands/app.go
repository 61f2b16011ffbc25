// Package commands is the `git queen` command line: one file per command or
// command group, each flags that fill the app's request (or, for the
// plumbing, an options struct) and a run function that calls it and prints,
// and one place (exit.go) that turns errors into exit codes.
package commands

import (
	"bufio"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
)

// Main runs git-queen as a process and returns its exit code. Standard
// output is buffered: a listing of thousands of rows is one write, not one
// per cell (5,000 inbox rows cost 60,000 system calls unbuffered).
func Main(args []string) int {
	env := OSEnv()
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	env.Stdout = out
	code := Run(env, args)
	if err := out.Flush(); err != nil && !errors.Is(err, syscall.EPIPE) {
		fmt.Fprintf(env.Stderr, "git-queen: write output: %v\n", err)
		if code == ExitOK {
			code = ExitFailure
		}
	}
	return code
}

// Run runs one git-queen invocation in env and returns its exit code. args
// includes the program name, as os.Args does.
func Run(env *Env, args []string) int {
	run := *env
	run.sessions = nil // each run opens its own, writing to its own streams
	if !wantsJSON(args) {
		run.Stdout, run.Stderr = safeWriter{env.Stdout}, safeWriter{env.Stderr}
	}
	env = &run
	cmds, all := commandsFor(env, args)
	app := newAppWith(env, cmds)
	if all {
		// Only the top level prints the version (--version, its help), and
		// Version() parses the build info, ~34K instructions: a run of one
		// command's group leaves it out, which hides --version there.
		app.Version = Version()
	}
	err := helpTopic(app.Run(reorderArgs(app, args)))
	if err != nil {
		if wantsJSON(args) {
			reportErrorJSON(env.Stderr, err)
		} else {
			reportError(env.Stderr, err)
		}
	}
	return exitCode(err)
}

// helpTopic is err, but for urfave's refusal of `git queen help NAME` for
// a NAME that is no command, which exits 3, none of the contract's codes:
// that is a usage error.
func helpTopic(err error) error {
	if topic, ok := strings.CutPrefix(fmt.Sprint(err), "No help topic for "); ok && errors.As(err, new(cli.ExitCoder)) {
		return usageErrorf("no command %s to help with", topic)
	}
	return err
}

const appDescription = `git-queen keeps the coordination state of a team of coding agents ("droids")
(messages, issue assignments, file reservations) as append-only JSONL in one
live store per repository, in git's common directory, where every worktree
sees it and nothing git does to branches can touch it. git carries it between
machines: its history is the ref refs/queen/ledger, which 'git queen sync'
exchanges with a remote. A merge driver unions concurrent appends to tracked
JSONL without conflicts or duplicate lines, and three hooks (pre-commit,
pre-merge-commit, pre-push) refuse commits, merges and pushes that touch
paths another droid reserved.

Start with 'git queen init --droid NAME' in a repository (add --remote origin
to share the store with every clone of it). Every command that prints data
takes --json. Flags may come before or after arguments.

Exit codes: 0 success, 1 failure or a failed check, 2 usage error,
5 reservation conflict. With --json, a failure also prints one JSON object on
stderr: {"error":{"code":5,"kind":"conflict","message":"...",...}}, kind one of
conflict, usage, failure.`

func newApp(env *Env) *cli.App {
	app := newAppWith(env, commands(env))
	app.Version = Version()
	return app
}

// newAppWith is the app with the given commands: all of them in a real
// run, one in a test of how argv becomes a command's request.
func newAppWith(env *Env, cmds []*cli.Command) *cli.App {
	app := &cli.App{
		Name:                 "git-queen",
		HelpName:             "git queen",
		Usage:                "coordinate coding agents that share a git repository",
		Description:          appDescription,
		Reader:               env.Stdin,
		Writer:               env.Stdout,
		ErrWriter:            env.Stderr,
		EnableBashCompletion: true,
		Flags:                nameFlags(globalFlags()),
		Commands:             prepare(cmds),
		// Errors are reported once, by Run; urfave must not exit the process.
		ExitErrHandler: func(*cli.Context, error) {},
		Before:         checkDroidFlag,
		OnUsageError:   usageError,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return unknownCommand("", c.Args().First(), c.App.Commands)
			}
			return cli.ShowAppHelp(c)
		},
	}
	setVersionPrinter.Do(func() {
		cli.VersionPrinter = func(c *cli.Context) {
			fmt.Fprintf(c.App.Writer, "git-queen version %s\n", c.App.Version)
		}
	})
	return app
}

// setVersionPrinter sets urfave's one global once: the MCP server runs
// commands concurrently in one process.
var setVersionPrinter sync.Once

// usageError turns urfave's flag errors into exit-2 usage errors that point
// at the right help.
func usageError(c *cli.Context, err error, _ bool) error {
	name := ""
	var flags []cli.Flag
	if c.Command != nil && c.Command.Name != c.App.Name {
		name, flags = commandPath(c), c.Command.Flags
	} else {
		flags = c.App.Flags
	}
	msg := err.Error()
	if typed, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		typed = strings.TrimLeft(typed, "-")
		msg = fmt.Sprintf("unknown flag --%s", typed)
		if near := nearestFlag(typed, flags); near != "" && near != typed {
			msg += fmt.Sprintf("; did you mean --%s?", near)
		}
	}
	if flag, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = dashed(strings.TrimLeft(flag, "-")) + " needs a value"
	} else if m := badFlagValue().FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("%s: %s is not a whole number", dashed(m[3]), m[2])
		if m[1] != "" {
			msg = fmt.Sprintf("%s: %s is neither true nor false", dashed(m[3]), m[2])
		}
	}
	return &UsageError{Command: name, Msg: msg}
}

// dashed is the flag name as typed: -n, --limit.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// badFlagValue is the flag package's refusal of a value an int or bool
// flag cannot take (said of -limit, with "parse error"): the boolean or
// not, the value quoted, and the flag's name.
var badFlagValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^invalid (boolean )?value (".*") for (?:flag )?-+([^:\s]+): `)
})

// nearestFlag is the flag name (of flags, and the global ones) closest to
// typed ("" when none is close).
func nearestFlag(typed string, flags []cli.Flag) string {
	var names []string
	for _, f := range append(slices.Clone(flags), globalFlags()...) {
		for _, name := range f.Names() {
			if len(name) > 1 {
				names = append(names, name)
			}
		}
	}
	if near := records.NearNames(typed, names); len(near) > 0 {
		return near[0]
	}
	return ""
}

// commandPath is the command's full name as typed ("msg send"): urfave's
// FullName drops the parent inside the subcommand's own context.
func commandPath(c *cli.Context) string {
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name {
			names = append(names, ctx.Command.Name)
		}
	}
	names = slices.Compact(names)
	slices.Reverse(names)
	return strings.Join(names, " ")
}

// prepare gives every command the same usage-error handling, hides the
// "help" subcommand urfave adds to commands that have no subcommands, and
// checks required flags itself: urfave reports a missing one by printing
// the whole help on stdout (which scripts read) and exiting 1.
func prepare(cmds []*cli.Command) []*cli.Command {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = usageError
		}
		if len(c.Subcommands) == 0 {
			c.HideHelpCommand = true
		} else if c.Action == nil {
			parent := c.Name
			c.Action = func(ctx *cli.Context) error {
				if ctx.Args().Present() {
					return unknownCommand(parent, ctx.Args().First(), ctx.Command.Subcommands)
				}
				return cli.ShowSubcommandHelp(ctx)
			}
		}
		wrapAction(c)
		c.Flags = nameFlags(c.Flags)
		prepare(c.Subcommands)
	}
	return cmds
}

// unknownCommand is the usage error for typed, which names none of the
// commands cmds of the group ("" for git queen itself), with the nearest
// command's name when one is close (reserv: reserve).
func unknownCommand(group, typed string, cmds []*cli.Command) error {
	msg := fmt.Sprintf("unknown command %q", typed)
	if group != "" {
		msg += " for " + group
	}
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	if near := records.NearNames(typed, names); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", near[0])
	}
	return &UsageError{Command: group, Msg: msg}
}

// wrapAction makes c's action check its required flags first (see
// prepare), and give a usage error it returns without naming its command
// that command, so that the hint points at that command's help (`git
// queen archive --help`), not the top-level one.
func wrapAction(c *cli.Command) {
	var required []string
	for _, f := range c.Flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Required {
			sf.Required = false
			sf.Usage += " (required)"
			required = append(required, sf.Name)
		}
	}
	if c.Action == nil {
		return
	}
	action := c.Action
	c.Action = func(ctx *cli.Context) error {
		if err := flagTakenForValue(ctx, ctx.Command.Flags); err != nil {
			return err
		}
		for _, name := range required {
			if !ctx.IsSet(name) {
				return &UsageError{Command: commandPath(ctx), Msg: "missing required flag --" + name}
			}
		}
		err := action(ctx)
		if usage, ok := errors.AsType[*UsageError](err); ok && usage.Command == "" {
			usage.Command = commandPath(ctx)
		}
		return err
	}
}

// flagTakenForValue refuses a flag that took the next argument, another
// flag of the command or a global one, for its value (reorderArgs notes
// them): `reserve --reason $WHY --shared src` with WHY empty reserved src
// exclusively, with the reason "--shared". --reason=--shared says what it
// means, and stays a value.
func flagTakenForValue(ctx *cli.Context, flags []cli.Flag) error {
	taken, _ := ctx.App.Metadata[takenForValueKey].(map[string]string)
	for _, f := range flags {
		name := f.Names()[0]
		if value, ok := taken[name]; ok && ctx.IsSet(name) {
			if value == "" {
				return &UsageError{Command: commandPath(ctx), Msg: fmt.Sprintf("--%s needs a value", name)}
			}
			return &UsageError{Command: commandPath(ctx), Msg: fmt.Sprintf(
				"--%s took %s for its value, which is a flag: give --%s a value (--%s=%s if that is the value), or leave it out",
				name, value, name, name, value)}
		}
	}
	return nil
}

// noArgs is the action of a command that takes no arguments: any is a
// usage error that says so, and hint what to give instead.
func noArgs(hint string, action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.Args().Present() {
			return &UsageError{Command: commandPath(c), Msg: commandPath(c) + " takes no arguments" + hint}
		}
		return action(c)
	}
}

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "droid", Aliases: []string{"agent"}, Usage: "act as droid `NAME` (default: $QUEEN_DROID or $QUEEN_AGENT, then git config queen.droid)"},
		&cli.StringFlag{Name: "beads-dir", Usage: "use the plain directory store `DIR` (the seed's layout) instead of the repository's live store (default: $BEADS_DIR)"},
		&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"},
	}
}

// commands is the one list of every command git-queen has.
func commands(env *Env) []*cli.Command {
	var cmds []*cli.Command
	for _, g := range commandTable {
		cmds = append(cmds, g.build(env)...)
	}
	return cmds
}

// commandTable is every command git-queen has, in the order help lists
// them, under the names (and aliases) that run them, so that a run builds
// only the command it runs: building all 31 and urfave setting them up
// cost every process about 0.1 ms of CPU (a test keeps the names true).
var commandTable = []struct {
	names string
	build func(*Env) []*cli.Command
}{
	{"init doctor hooks", group(runs(newInitCmd, runInit), runs(newDoctorCmd, runDoctor), runs(newHooksCmd, runHooks))},
	{"sync", group(runs(newSyncCmd, runSync))}, {"export", group(runs(newExportCmd, runExport))},
	{"reserve release unreserve renew reservations reserved check", group(runs(newReserveCmd, runReserve), runs(newReleaseCmd, runRelease),
		runs(newRenewCmd, runRenew), runs(newReservationsCmd, runReservations), runs(newCheckCmd, runCheck))},
	{"conflicts", group(conflictsCommand)}, {"msg", group(msgCommand)}, {"droids who", group(droidsCommand)},
	{"assign claim unassign assignments", group(runs(newAssignCmd, runAssign), runs(newClaimCmd, runClaim),
		runs(newUnassignCmd, runUnassign), runs(newAssignmentsCmd, runAssignments))},
	{"ready", group(runs(newReadyCmd, runReady))},
	{"compact archive", group(runs(newCompactCmd, runCompact), runs(newArchiveCmd, runArchive))},
	{"merge-driver", group(runs(newMergeDriverCmd, runMergeDriver))}, {"resolve", group(resolveCommand)},
	{"validate", group(runs(newValidateCmd, runValidate))}, {"schema", group(schemaCommand)}, {"st", group(stCommand)}, {"pipeline", group(pipelineCommand)},
	{"hook", group(hookCommand)}, {"completion", group(completionCommand)}, {"mcp", group(mcpCommand)},
	{"status", group(newStatusCmd)},
	{"man", group(manCommand)},
}

// group is a row's builder: the commands builds make, in order.
func group(builds ...func(*Env) *cli.Command) func(*Env) []*cli.Command {
	return func(env *Env) []*cli.Command {
		cmds := make([]*cli.Command, len(builds))
		for i, build := range builds {
			cmds[i] = build(env)
		}
		return cmds
	}
}

// runs is a command's builder with its real run function, where build
// takes one so that tests can pass theirs (the seam newReserveCmd
// describes).
func runs[O any](build func(*Env, func(O) error) *cli.Command, run func(O) error) func(*Env) *cli.Command {
	return func(env *Env) *cli.Command { return build(env, run) }
}

// commandsFor is the commands a run of args needs: when args[1] names a
// command, that command's group only; else (help, a flag, a typo, which
// the top level answers with every command) all of them. completion walks
// the whole tree, so it gets all of them too. all says which.
func commandsFor(env *Env, args []string) (cmds []*cli.Command, all bool) {
	if len(args) > 1 && args[1] != "completion" {
		for _, g := range commandTable {
			if slices.Contains(strings.Fields(g.names), args[1]) {
				return g.build(env), false
			}
		}
	}
	return commands(env), true
}

// checkDroidFlag refuses a global flag that took another flag or lacked
// its value (flagTakenForValue), --droid ” (which would quietly fall
// back to the configured identity, acting as someone the caller did not
// name) and a name no command would accept.
func checkDroidFlag(c *cli.Context) error {
	if err := flagTakenForValue(c, c.App.Flags); err != nil {
		return err
	}
	if !c.IsSet("droid") {
		return nil
	}
	name := c.String("droid")
	if strings.TrimSpace(name) == "" {
		return &UsageError{Msg: "--droid is empty: give a droid name, or leave the flag out to use $QUEEN_DROID or git config queen.droid"}
	}
	return app.CheckDroidFlag(name)
}
