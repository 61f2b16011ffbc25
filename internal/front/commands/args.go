package commands

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs lets flags follow positional arguments, as people and agents
// write them (`git queen reserve 'src/**' --exclusive --json`). urfave/cli v2
// stops reading flags at the first positional argument and would take
// "--exclusive" for a pattern. This pass walks the command path, moves every
// flag the command defines in front of its positional arguments, and moves
// global flags (--json, --droid, --beads-dir) up to the application, where
// they are defined. A "--" ends flag handling as usual.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) == 0 {
		return args
	}
	out := []string{args[0]}
	var global []string
	rest := args[1:]

	// Application-level flags before the command name.
	var before []string
	appFlags := indexFlags(app.Flags)
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "--" && rest[0] != "-" {
		n := flagWidth(appFlags, rest)
		before = append(before, rest[:n]...)
		rest = rest[n:]
	}
	// git's `git help msg send`: the help of the (sub)command named, which
	// urfave's help command gave for its first word alone (msg's).
	if len(rest) > 1 && rest[0] == "help" && findCommand(app.Commands, rest[1]) != nil {
		rest = append(slices.Clone(rest[1:]), "--help")
	}
	var path []string
	commands := app.Commands
	var cmd *cli.Command
	for len(rest) > 0 {
		next := findCommand(commands, rest[0])
		if next == nil {
			break
		}
		cmd = next
		path = append(path, rest[0])
		rest = rest[1:]
		if len(cmd.Subcommands) == 0 {
			break
		}
		// A global flag between a group and its subcommand ("msg --json
		// inbox") goes before the command, where urfave reads it; the
		// group's own flags (rare) stay where they are.
		var lifted []string
		before, lifted = liftGlobal(appFlags, indexFlags(cmd.Flags), before, rest)
		rest = lifted
		commands = cmd.Subcommands
	}
	if cmd != nil && len(cmd.Subcommands) > 0 {
		// Help for a group: a subcommand's when a word names one (msg
		// --help send), else the group's own (msg --help bob said "no
		// command 'bob' to help with" and pointed at the top-level help).
		if words := slices.DeleteFunc(slices.Clone(rest), isHelpFlag); len(words) < len(rest) {
			if len(words) > 0 && findCommand(cmd.Subcommands, words[0]) != nil {
				return reorderArgs(app, slices.Concat(out, before, path, words, []string{"--help"}))
			}
			return slices.Concat(out, before, path, []string{"--help"})
		}
	}
	if cmd == nil || cmd.SkipFlagParsing || len(cmd.Subcommands) > 0 {
		return slices.Concat(out, before, path, rest)
	}
	var flags, positional []string
	help := false
	cmdFlags := indexFlags(cmd.Flags)
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" || len(positional) > 0 && gitArgv[cmd.Name] {
			if a == "--" {
				i++
			}
			positional = append(positional, rest[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		if n := flagWidth(appFlags, rest[i:]); n > 0 && appFlags[flagName(a)] != nil && cmdFlags[flagName(a)] == nil {
			noteLackingValue(app, appFlags[flagName(a)], rest[i:])
			global = append(global, rest[i:i+n]...)
			i += n - 1
			continue
		}
		n := flagWidth(cmdFlags, rest[i:])
		if next := rest[i+n-1]; n == 2 && len(next) > 1 && next[0] == '-' && next != "--" &&
			(cmdFlags[flagName(next)] != nil || appFlags[flagName(next)] != nil) {
			noteTakenForValue(app, cmdFlags[flagName(a)].Names()[0], next)
		}
		noteLackingValue(app, cmdFlags[flagName(a)], rest[i:])
		help = help || isHelpFlag(a)
		flags = append(flags, rest[i:i+n]...)
		i += n - 1
	}
	out = slices.Concat(out, before, global, path, flags)
	// urfave takes a help flag's arguments for the name of a command to
	// help with: `msg send bob --help` said "no command 'bob' to help
	// with". Help for a command shows that command's, whatever it is given.
	if len(positional) > 0 && !help {
		out = append(append(out, "--"), positional...)
	}
	return out
}

// isHelpFlag reports whether arg asks for help (-h, -help, --help).
func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// gitArgv are the commands git runs with arguments of its own making
// (merge-driver's %O %A %B %L %P): from the first argument on, every word
// is an argument, so that a path that starts with '-' (-x/.work/log.jsonl)
// is merged, not refused as an unknown flag (git then took the refusal for
// a conflict and left ours alone in the file, without conflict markers).
var gitArgv = map[string]bool{"merge-driver": true}

// liftGlobal moves the global flags among the flags at the head of rest
// (those that are not also the group's own, in groupFlags) to the end of
// before, and returns both; the other flags stay, in order, and so does
// everything from the first argument that is not a flag.
func liftGlobal(appFlags, groupFlags map[string]cli.Flag, before, rest []string) ([]string, []string) {
	var kept []string
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "--" && rest[0] != "-" {
		name := flagName(rest[0])
		if appFlags[name] == nil || groupFlags[name] != nil {
			kept, rest = append(kept, rest[0]), rest[1:]
			continue
		}
		n := flagWidth(appFlags, rest)
		before, rest = append(before, rest[:n]...), rest[n:]
	}
	return before, append(kept, rest...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

// flagName strips dashes and any "=value" from a flag argument.
func flagName(arg string) string {
	name := strings.TrimLeft(arg, "-")
	name, _, _ = strings.Cut(name, "=")
	return name
}

// indexFlags maps every name of flags to its flag (the first flag of a
// name wins, as a lookup in order found it). urfave's Names() runs a
// regular expression over each name at every call: looking every argument
// up in every flag ran it about 90 times for a msg send with three flags.
func indexFlags(flags []cli.Flag) map[string]cli.Flag {
	index := make(map[string]cli.Flag, len(flags))
	for _, f := range flags {
		for _, name := range f.Names() {
			if _, taken := index[name]; !taken {
				index[name] = f
			}
		}
	}
	return index
}

// flagWidth is how many arguments the flag at args[0] uses: 1 for a boolean
// or "--name=value", 2 for "--name value". Unknown flags count 1 and are left
// for the parser to reject.
func flagWidth(flags map[string]cli.Flag, args []string) int {
	f := flags[flagName(args[0])]
	if f == nil || strings.Contains(args[0], "=") || len(args) < 2 {
		return 1
	}
	if !takesValue(f) {
		return 1
	}
	return 2
}

// takesValue says whether f reads a value (--ttl 2h), not only its name
// (--shared).
func takesValue(f cli.Flag) bool {
	dv, ok := f.(cli.DocGenerationFlag)
	return !ok || dv.TakesValue()
}

// takenForValueKey keys, in the app's Metadata, the flags of the command
// that took another flag for their value, "--reason --shared" (name to
// value; "" for one given last, with no value), which flagTakenForValue
// refuses.
const takenForValueKey = "takenForValue"

// noteLackingValue notes f, the flag at args[0], as lacking its value
// (value "") when it takes one and is the last argument: moved in front of
// the command's arguments, or of the command, it would take the "--" put
// before them, or the command's name, for its value.
func noteLackingValue(app *cli.App, f cli.Flag, args []string) {
	if f != nil && len(args) == 1 && !strings.Contains(args[0], "=") && takesValue(f) {
		noteTakenForValue(app, f.Names()[0], "")
	}
}

func noteTakenForValue(app *cli.App, name, value string) {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	taken, _ := app.Metadata[takenForValueKey].(map[string]string)
	if taken == nil {
		taken = map[string]string{}
		app.Metadata[takenForValueKey] = taken
	}
	taken[name] = value
}
