package commands

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/hooks"
	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/team/setup"
)

// newInitCmd builds `init`; runF receives the options (setup.Options) its flags fill (the
// seam newReserveCmd describes).
func newInitCmd(env *Env, runF func(call[setup.Options]) error) *cli.Command {
	o := call[setup.Options]{Env: env}
	return &cli.Command{
		Name:  "init",
		Usage: "set up this repository for git-queen (idempotent)",
		Description: `Creates the live store in git's common directory (one for every worktree,
untouched by checkout, stash, reset and merge), imports the logs an older
setup kept in .beads/queen_*.jsonl into it, adds the merge=queen lines to
.gitattributes (also one for each st stream pattern .beads/queen.toml names
with format = "st", unless a line of yours already gives that pattern a
merge attribute), registers the merge driver in the repository's git config,
installs the three hooks (pre-commit, pre-merge-commit, pre-push) where git
looks for them, and with --droid stores this worktree's identity.

A hook already there keeps running after git-queen's (renamed NAME.queen-
chained), and still blocks; in a repository that keeps Git LFS objects the
pre-push hook runs LFS's too. Where git runs hooks that git-queen does not
write (husky's, lefthook's, the pre-commit framework's, or a hooks directory
that is part of the repository's files), init changes nothing there: it
sets up the rest, prints the line to add to each hook, and exits 1 until
the hooks run git-queen (or --no-hooks).

With --remote NAME the store is shared with every clone that uses that git
remote: init sets queen.remote, adds the refspec that fetches the ledger
(refs/queen/ledger) to remote.NAME.fetch, and syncs once; when that sync
fails (the remote cannot be reached, refuses the ledger, or authentication
fails), init exits 1 with everything else set up.

Running it again changes nothing. Commit .gitattributes; every clone needs
its own 'git queen init' (git config is not cloned).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Destination: &o.Req.Remote, Usage: "share the store through the git remote `NAME` (sets queen.remote)"},
			&cli.BoolFlag{Name: "no-hooks", Destination: &o.Req.NoHooks, Usage: "do not install the hooks (pre-commit, pre-merge-commit, pre-push)"},
			&cli.BoolFlag{Name: "force", Destination: &o.Req.Force, Usage: "install the hooks even into a global or system core.hooksPath, or one outside the repository"},
		},
		Action: noArgs("; name the droid with --droid NAME", func(c *cli.Context) error {
			o.G = readGlobals(c)
			o.Req.Droid = o.G.Droid
			return runF(o)
		}),
	}
}

// newDoctorCmd builds `doctor`.
func newDoctorCmd(env *Env, runF func(call[app.DoctorRequest]) error) *cli.Command {
	o := call[app.DoctorRequest]{Env: env}
	return &cli.Command{
		Name:  "doctor",
		Usage: "check what git-queen needs of this repository; --fix repairs what init sets up",
		Description: `One line per check: git-queen on PATH, the merge driver registered (and
whether .gitattributes names it while the config lacks it, as in a fresh
clone, where git silently falls back to a text merge), the .gitattributes
and .gitignore lines, this worktree's identity, every log readable and
valid, the lock, leftovers of interrupted rewrites, and torn writes set
aside. Exits 1 when a check fails.

One line for each hook (pre-commit, pre-merge-commit, pre-push): the hook
git runs (following core.hooksPath), whose it is (git-queen's, husky's,
lefthook's, the pre-commit framework's, or another), whether it runs
git-queen's check and through what, what that guards, the hook it chains,
and for pre-push in a repository that keeps Git LFS objects, what runs LFS's
pre-push.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Destination: &o.Req.Fix, Usage: "repair what init would have set up"},
			&cli.BoolFlag{Name: "force", Destination: &o.Req.Force, Usage: "with --fix, install the hooks even into a global core.hooksPath, or one outside the repository"},
		},
		Action: noArgs("", func(c *cli.Context) error {
			o.G = readGlobals(c)
			return runF(o)
		}),
	}
}

// newHooksCmd builds `hooks install|uninstall|status`.
func newHooksCmd(env *Env, runF func(hooksOptions) error) *cli.Command {
	verb := func(name string, o *hooksOptions) cli.ActionFunc {
		return noArgs("", func(c *cli.Context) error {
			o.Env, o.G, o.Verb = env, readGlobals(c), name
			return runF(*o)
		})
	}
	var install, uninstall, status hooksOptions
	return &cli.Command{
		Name:  "hooks",
		Usage: "install, uninstall or show git-queen's hooks (pre-commit, pre-merge-commit, pre-push)",
		Description: `install puts the three hooks where git looks for them (git rev-parse
--git-path hooks, which follows core.hooksPath); a hook already there is
kept as NAME.queen-chained and runs after git-queen's. It does not write
where git runs a hook manager's hooks or a hooks directory of the
repository's files: it says what to add there instead, and exits 1. A
hook it cannot install does not stop the others: it says why of each,
and exits 1.
uninstall removes git-queen's hooks and puts back the ones they chained;
it names the files of the team's that still run git-queen's check (a
.husky/ script, lefthook.yml), which it leaves as they are. status says,
for each hook, what git runs, whose it is and whether it runs git-queen,
and exits 1 when one fails (as doctor does).

With --json: hooks, the state of each; status adds checks (its verdicts),
install and uninstall add did (what they changed, one line a hook; empty
when nothing); a hook git-queen could not read or install has error, why.
hook, the first of hooks, is deprecated: read hooks.`,
		Subcommands: []*cli.Command{
			{Name: "install", Usage: "install the three hooks (a hook already there is kept and still runs)",
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "force", Destination: &install.Force, Usage: "install even into a global or system core.hooksPath, or one outside the repository"}},
				Action: verb("install", &install)},
			{Name: "uninstall", Usage: "remove git-queen's hooks and restore the ones they chained", Action: verb("uninstall", &uninstall)},
			{Name: "status", Usage: "say, for each hook, what git runs and whether it runs git-queen", Action: verb("status", &status)},
		},
	}
}

// colour says whether output may use colour: a terminal, no NO_COLOR, and
// never in JSON.
func (e *Env) colour(g globals) bool {
	return e.Terminal && e.Getenv("NO_COLOR") == "" && !g.JSON
}

var statusColour = map[setup.Status]string{setup.OK: "32", setup.Fixed: "32", setup.Warn: "33", setup.Fail: "31"}

func printChecks(w io.Writer, checks []setup.Check, colour bool) {
	for _, c := range checks {
		status := fmt.Sprintf("%-5s", c.Status)
		if colour {
			// Our own colour codes, past the escaping of control characters.
			fmt.Fprintf(rawWriter(w), "\x1b[%sm%s\x1b[0m", statusColour[c.Status], status)
		} else {
			fmt.Fprint(w, status)
		}
		fmt.Fprintf(w, "  %-16s %s\n", c.Name, c.Message)
	}
}

func runInit(o call[setup.Options]) error {
	res, err := app.Init(o.Env.session(o.G), o.Req)
	if res == nil {
		return err // nothing was changed
	}
	changes, checks, elsewhere, synced, syncErr := res.Changes, res.Checks, res.Elsewhere, res.Synced, res.SyncErr
	if o.G.JSON {
		out := map[string]any{"changes": jsonline.NonNil(changes), "checks": checks}
		if synced != nil {
			out["sync"] = synced
		}
		if syncErr != nil {
			out["sync_error"] = syncErr.Error()
		}
		if jerr := printJSON(o.Env.Stdout, out); jerr != nil {
			return jerr
		}
		if err == nil && syncErr != nil {
			return firstSyncError(o.Req.Remote, syncErr)
		}
		if err == nil && elsewhere != nil {
			return elsewhere
		}
		return err
	}
	printChanges(o.Env.Stdout, changes)
	if err != nil {
		sayChecks(o.Env.Stderr, toSay(checks, setup.Named(err), o.Req.NoHooks))
		return err
	}
	said := toSay(checks, elsewhere.Names(), o.Req.NoHooks)
	if len(changes) == 0 && len(said) == 0 && elsewhere == nil {
		fmt.Fprintln(o.Env.Stdout, "already set up; nothing changed")
	} else if len(changes) == 0 {
		fmt.Fprintln(o.Env.Stdout, "nothing changed")
	} else if slices.ContainsFunc(changes, func(c setup.Change) bool { return strings.HasSuffix(c.Name, "gitattributes") }) {
		fmt.Fprintln(o.Env.Stdout, "commit .gitattributes; each clone runs `git queen init` once (git config is not cloned)")
	} else {
		fmt.Fprintln(o.Env.Stdout, "each clone runs `git queen init` once (git config is not cloned)")
	}
	for _, ch := range changes {
		if ch.Name == "migrate" {
			fmt.Fprintln(o.Env.Stdout, "imported the older setup's .beads/queen_*.jsonl into the live store; git-queen no longer reads them: "+
				"git rm --cached .beads/queen_*.jsonl and commit, or keep them for tools that read them (git queen export refreshes them)")
		}
	}
	sayChecks(o.Env.Stderr, said)
	if syncErr != nil {
		return firstSyncError(o.Req.Remote, syncErr)
	}
	if synced != nil {
		printSync(o.Env, synced)
	}
	if elsewhere != nil {
		return elsewhere
	}
	return nil
}

// toSay are the checks init and hooks install say after what they did:
// those that fail or warn, but those the error says what to do about
// (named, setup.Named), or any hook with noHooks.
func toSay(checks []setup.Check, named []string, noHooks bool) []setup.Check {
	var said []setup.Check
	for _, c := range checks {
		if (c.Status == setup.Fail || c.Status == setup.Warn) && !slices.Contains(named, c.Name) && !(noHooks && slices.Contains(hooks.Names, c.Name)) {
			said = append(said, c)
		}
	}
	return said
}

// sayChecks writes each of checks as a line of its own on w (stderr).
func sayChecks(w io.Writer, checks []setup.Check) {
	for _, c := range checks {
		fmt.Fprintf(w, "git-queen: %s: %s\n", c.Name, c.Message)
	}
}

// firstSyncError is init --remote's failure when the remote could not be
// synced with: the setup stands, the sharing does not yet.
func firstSyncError(remote string, err error) error {
	return fmt.Errorf("set up, but the first sync with %s failed, so nothing is shared yet (run git queen sync once it works): %w", remote, err)
}

func runDoctor(o call[app.DoctorRequest]) error {
	changes, checks, err := app.Doctor(o.Env.session(o.G), o.Req)
	if o.G.JSON {
		if jerr := printJSON(o.Env.Stdout, map[string]any{"changes": jsonline.NonNil(changes), "checks": checks}); jerr != nil {
			return jerr
		}
	} else {
		printChecks(o.Env.Stdout, checks, o.Env.colour(o.G))
	}
	if err != nil {
		return err
	}
	var failed []string
	fixable := false
	for _, c := range checks {
		if c.Status == setup.Fail {
			failed = append(failed, c.Name)
			fixable = fixable || c.Fixable
		}
	}
	if len(failed) > 0 {
		if !o.G.JSON {
			hint := "`git queen doctor --fix` repairs what init sets up"
			if !fixable {
				hint = "each line above says what to do"
			}
			fmt.Fprintf(o.Env.Stderr, "git-queen: %d check(s) failed: %s; %s\n", len(failed), strings.Join(failed, ", "), hint)
		}
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

type hooksOptions struct {
	Env   *Env
	G     globals
	Verb  string
	Force bool
}

func runHooks(o hooksOptions) error {
	r, err := setup.NewRepo(o.Env.Dir)
	if err != nil {
		return err
	}
	var did string
	switch o.Verb {
	case "install":
		did, err = r.InstallHook(o.Force, o.Env.Getenv)
	case "uninstall":
		did, err = r.UninstallHook()
	}
	if err != nil && o.Verb == "uninstall" {
		return err
	}
	all, failed := r.Hooks(o.Env.Getenv), setup.Failures(err) // install goes on past a hook it cannot install
	for _, h := range all {
		h.Error = cmp.Or(h.Error, failed[h.Name])
	}
	var checks []setup.Check
	if o.Verb == "status" {
		// A hook that does not guard is a failed check (exit 1), as in doctor.
		checks = r.HookChecks(o.Env.Getenv)
		if slices.ContainsFunc(checks, func(c setup.Check) bool { return c.Status == setup.Fail }) {
			err = &SilentError{Code: ExitFailure}
		}
	}
	if o.G.JSON {
		out := map[string]any{"hooks": all, "hook": all[0]} // hook: deprecated, kept for the scripts that read it
		if o.Verb == "status" {
			out["checks"] = checks // the verdicts the text gives
		} else {
			out["did"] = did
		}
		if jerr := printJSON(o.Env.Stdout, out); jerr != nil {
			return jerr
		}
		return err
	}
	var said []setup.Check // what install leaves failing or warning, as doctor says it
	if o.Verb == "install" {
		said = toSay(r.HookChecks(o.Env.Getenv), setup.Named(err), false)
	}
	switch {
	case did != "":
		fmt.Fprintln(o.Env.Stdout, did)
	case o.Verb == "install" && err == nil && len(said) == 0:
		fmt.Fprintln(o.Env.Stdout, "the hooks are installed already; nothing changed")
	case o.Verb == "install":
		fmt.Fprintln(o.Env.Stdout, "nothing changed")
	case o.Verb == "uninstall":
		fmt.Fprintln(o.Env.Stdout, "none of git-queen's hooks is installed; nothing changed")
	case o.Verb == "status":
		for _, c := range checks {
			fmt.Fprintf(o.Env.Stdout, "%-16s %-4s %s\n", c.Name, c.Status, c.Message)
		}
	}
	sayChecks(o.Env.Stderr, said)
	return err
}

// printChanges says what init or doctor --fix changed: what the fix did
// when it says (one line each), else what the check had found.
func printChanges(w io.Writer, changes []setup.Change) {
	for _, ch := range changes {
		if ch.Did != "" {
			fmt.Fprintln(w, ch.Did)
			continue
		}
		fmt.Fprintf(w, "set up %s (was: %s)\n", ch.Name, ch.Was)
	}
}
