package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/team/precommit"
)

func hookCommand(env *Env) *cli.Command { return newHookCmd(env, runPreCommit, runPrePush) }

// newHookCmd builds `hook` and the hooks under it; like newReserveCmd, each
// hands its run function the options its argv gives.
func newHookCmd(env *Env, preCommit func(call[app.PreCommitRequest]) error, prePush func(call[app.PrePushRequest]) error) *cli.Command {
	commitCheck := func(c *cli.Context) error { return preCommit(call[app.PreCommitRequest]{Env: env, G: readGlobals(c)}) }
	return &cli.Command{
		Name:  "hook",
		Usage: "run a git hook's check (the installed hook calls this)",
		Subcommands: []*cli.Command{{
			Name:  "pre-commit",
			Usage: "refuse a commit that touches paths another droid reserved, or carries broken logs",
			Description: `Reads the staged changes (both sides of a rename, deletions too) and the
staged content of the logs, never the working tree. Refuses the commit when
a staged path outside .beads/ is reserved exclusively by another droid (with
no identity, by anyone), or when a staged log is invalid, has conflict
markers or union-merge duplicates, or rewrites committed lines of an
append-only store. If the check itself cannot run, the commit is refused
too, with the cause. Bypass it once with 'git commit --no-verify'.`,
			Action: commitCheck,
		}, {
			Name:  "pre-merge-commit",
			Usage: "refuse a merge commit (one git makes without conflicts) that touches paths another droid reserved",
			Description: `The pre-commit check, for the merges git commits by itself: git runs
pre-merge-commit, not pre-commit, when a merge has no conflicts. A merge is
judged by what it brings that no one has judged: the paths it changes by
itself (its resolution) and those that commits no remote has change.
Commits already on a remote (git pull of the holder's own pushed work) are
never refused again. Its logs must keep every committed line of every
parent, in any order. Bypass it once with 'git merge --no-verify'.`,
			Action: commitCheck,
		}, {
			Name:      "pre-push",
			Usage:     "refuse a push of commits that change paths another droid reserved",
			ArgsUsage: "REMOTE URL",
			// git hands on the remote's name as it is: one named
			// --droid=ann must not be read as a flag (and make the check
			// judge for ann), nor --help (and skip it). Global flags go
			// before the command: git queen --json hook pre-push.
			SkipFlagParsing: true,
			Description: `Reads the refs being pushed on stdin (as git gives them) and checks every
commit the remote does not have yet (not reachable from its remote-tracking
refs or from what the remote ref points at, nor from the team's remote's:
queen.remote, or origin) against the active exclusive
reservations: a change to a path another droid holds refuses the push,
naming commit, path and holder. Cherry-picks, rebases, git am and amends
do not run the commit hooks, but every change leaves the machine by a
push. A force push that takes commits off the remote is refused when it
undoes their change to a path another droid holds. While another droid
holds anything, a push is refused when the remote's ref is at a commit
never fetched here: git refuses such a push without --force anyway, and
with --force it would take off commits no check here can see (git fetch,
rebase onto them, then push again).

First it fetches the remote's ledger (refs/queen/ledger only, as git queen
sync does; queen.remote's when this clone shares no ledger with the remote,
a fork or a mirror), so the push is judged on what is held now, within
queen.prePushTimeout (default 5s; off for no fetch). A remote that cannot
be reached or does not answer in time leaves the push judged on what this
clone has, with one line that says so. Bypass the check once with
'git push --no-verify'.

Empty stdin is git's word that nothing is pushed. git writes the refs
once: in a script that also runs git lfs pre-push (husky's .husky/pre-push),
whichever of the two reads them second reads none, so read them once and
pipe each its copy (the line git queen init prints; doctor warns until it is
there). Run by the pre-commit
framework (PRE_COMMIT=1), which reads git's lines itself, it judges the refs
the framework names instead (PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF,
PRE_COMMIT_LOCAL_BRANCH, PRE_COMMIT_REMOTE_BRANCH, PRE_COMMIT_REMOTE_NAME),
and with none it refuses: there is nothing to judge. The framework names a
remote commit this clone never fetched as one of this clone's, so the check
asks the remote what it shows for the branch (within queen.prePushTimeout).`,
			Action: func(c *cli.Context) error {
				remote := c.Args().First()
				if c.NArg() == 1 && (remote == "--help" || remote == "-h") && !fromGit(env) {
					return cli.ShowCommandHelp(c.Lineage()[1], "pre-push") // asked by hand: git gives two words and a pipe
				}
				if remote == "--" { // a hook that ends the flags itself: git-queen hook pre-push -- "$@"
					remote = c.Args().Get(1)
				}
				return prePush(call[app.PrePushRequest]{Env: env, G: readGlobals(c), Req: app.PrePushRequest{Remote: remote}})
			},
		}},
	}
}

// errCheckFailed wraps anything that kept the check from running: the
// commit is refused, and the message says how to bypass the check.
type errCheckFailed struct {
	err   error
	push  bool   // the pre-push check, not a commit's
	after string // what follows the bypass (lfsAfterNoVerify)
}

func (e *errCheckFailed) Error() string {
	hook, what := "pre-commit", "commit"
	if e.push {
		hook, what = "pre-push", "push"
	}
	return fmt.Sprintf("the %s check could not run, so the %s was refused: %v\n"+
		"fix the cause (git queen doctor may help), or %s without the check: git %s --no-verify%s", hook, what, e.err, what, what, e.after)
}

func (e *errCheckFailed) Unwrap() error { return e.err }

// runPreCommit is the commit hooks' check: its request is what the hook's
// environment and --json say.
func runPreCommit(o call[app.PreCommitRequest]) error {
	o.Env = o.Env.guardEnv()
	o.Req.ReportIdentity = o.G.JSON
	if o.Env.Environ != nil {
		o.Req.Environ = o.Env.Environ()
	}
	res, err := app.PreCommit(o.Env.session(o.G), o.Req)
	if err != nil {
		return &errCheckFailed{err: err}
	}
	problems := app.Problems(res.Problems)
	out := map[string]any{"refused": res.Refused(), "result": res, "problems": problems}
	return printVerdict(o.Env, o.G, out, res.Refused(), ExitFailure, func() error {
		warnProblems(o.Env.Stderr, problems)
		if res.Refused() {
			printRefusal(o.Env.Stderr, res, res.Me)
		}
		return nil
	})
}

func printRefusal(w io.Writer, res *precommit.Result, me string) {
	if len(res.Refusals) > 0 {
		what := "commit"
		if res.Merge != nil {
			what = "merge"
		}
		fmt.Fprintf(w, "git-queen: %s refused: %d staged path(s) reserved by other droids:\n", what, len(res.Refusals))
		var names []string
		for _, r := range res.Refusals {
			h := r.Reservation
			names = append(names, h.Droid)
			how := ""
			switch {
			case res.Merge != nil && r.Commit != "":
				how = fmt.Sprintf("; changed by commit %s, which no remote has yet", r.Commit[:min(12, len(r.Commit))])
			case res.Merge != nil:
				how = "; changed by the merge itself"
			}
			issue := ""
			if h.IssueID != "" {
				issue = ", issue " + h.IssueID
			}
			fmt.Fprintf(w, "  %s: reserved exclusively by %s (pattern %s%s, expires %s)%s\n",
				shownPath(r.Path), h.Droid, h.Pattern, issue, records.Relative(res.Now, h.Expiry()), how)
		}
		rest := "unstage those paths, or commit anyway with git commit --no-verify"
		if res.Squash {
			// The holder's pushed change, squashed, is judged as the
			// committer's; a merge of the branch judges it as the holder's.
			rest = "merge the branch with git merge --no-ff instead of --squash (a merge passes what a remote " +
				"has already, judged when it was pushed), " + rest
		}
		if res.Merge != nil {
			// Never "unstage": in a merge that would drop the other side's work.
			rest = "stop this merge (git merge --abort; nothing is lost), or merge anyway with git merge --no-verify " +
				"(git commit --no-verify when concluding a merge that stopped for conflicts)"
		}
		printWaysOut(w, names, rest, me)
	}
	for _, r := range res.Invalid {
		fmt.Fprintf(w, "git-queen: commit refused: the staged %s is not a valid %s:\n", r.Path, r.Format)
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
		if r.Omitted > 0 {
			fmt.Fprintf(w, "  ... and %d more (git queen validate %s)\n", r.Omitted, r.Path)
		}
	}
	for i, r := range res.Rewrites {
		fmt.Fprintf(w, "git-queen: commit refused: %s:%d: %s\n", r.Path, r.Line, r.Msg)
		if n := res.RewritesOmitted[r.Path]; n > 0 && (i+1 == len(res.Rewrites) || res.Rewrites[i+1].Path != r.Path) {
			fmt.Fprintf(w, "  ... and %d more changed committed lines in %s\n", n, r.Path)
		}
	}
	for _, l := range res.Symlinks {
		fmt.Fprintf(w, "git-queen: commit refused: %s is a symbolic link in the store directory; a link there would let "+
			"git-queen's writes land wherever it points (whatever queen.toml says): store files are regular files\n", l)
	}
	if len(res.Invalid) > 0 || len(res.Rewrites) > 0 || len(res.Symlinks) > 0 {
		fmt.Fprintln(w, "fix the staged files (git queen validate; git queen resolve repairs merge debris), or commit anyway with git commit --no-verify")
	}
}
