package commands

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/precommit"
	"github.com/git-queen/git-queen/internal/records"
)

func hookCommand(env *Env) *cli.Command { return newHookCmd(env, runPreCommit, runPrePush) }

// newHookCmd builds `hook` and the hooks under it; like newReserveCmd, each
// hands its run function the options its argv gives.
func newHookCmd(env *Env, preCommit func(preCommitOptions) error, prePush func(prePushOptions) error) *cli.Command {
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
			Action: func(c *cli.Context) error {
				return preCommit(preCommitOptions{Env: env, G: readGlobals(c)})
			},
		}, {
			Name:  "pre-merge-commit",
			Usage: "refuse a merge commit (one git makes without conflicts) that touches paths another droid reserved",
			Description: `The pre-commit check, for the merges git commits by itself: git runs
pre-merge-commit, not pre-commit, when a merge has no conflicts. Bypass it
once with 'git merge --no-verify'.`,
			Action: func(c *cli.Context) error {
				return preCommit(preCommitOptions{Env: env, G: readGlobals(c)})
			},
		}, {
			Name:      "pre-push",
			Usage:     "refuse a push of commits that change paths another droid reserved",
			ArgsUsage: "REMOTE URL",
			Description: `Reads the refs being pushed on stdin (as git gives them) and checks every
commit the remote does not have yet (not reachable from its remote-tracking
refs or from what the remote ref points at) against the active exclusive
reservations: a change to a path another droid holds refuses the push,
naming commit, path and holder. Cherry-picks, rebases, git am and amends
do not run the commit hooks, but every change leaves the machine by a
push. Bypass it once with 'git push --no-verify'.`,
			Action: func(c *cli.Context) error {
				return prePush(prePushOptions{Env: env, G: readGlobals(c), Remote: c.Args().First()})
			},
		}},
	}
}

// prePushOptions are what git hands the pre-push hook: the remote's name
// (its URL is not needed; the refs come on stdin).
type prePushOptions struct {
	Env    *Env
	G      globals
	Remote string
}

func runPrePush(o prePushOptions) error {
	o.Env = o.Env.guardEnv()
	env, g := o.Env, o.G
	res, err := prePushCheck(env, g, o.Remote)
	if err != nil {
		return &errCheckFailed{err: err, push: true}
	}
	if g.JSON {
		if err := printJSON(env.Stdout, map[string]any{"refused": len(res.Refusals) > 0, "result": res}); err != nil {
			return err
		}
	} else if len(res.Refusals) > 0 {
		printPushRefusal(env.Stderr, res)
	}
	if len(res.Refusals) > 0 {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

func prePushCheck(env *Env, g globals, remote string) (*precommit.PushResult, error) {
	repo, err := gitrepo.Discover(env.Dir)
	if err != nil {
		return nil, err
	}
	updates, err := precommit.ParseRefUpdates(env.Stdin)
	if err != nil {
		return nil, err
	}
	s, err := env.openStore(g)
	if err != nil {
		return nil, err
	}
	if remote == "" {
		remote = "origin"
	}
	return precommit.CheckPush(repo, s, remote, updates, func() string { return env.identity(g) })
}

func printPushRefusal(w io.Writer, res *precommit.PushResult) {
	fmt.Fprintf(w, "git-queen: push refused: %d change(s) to paths other droids reserved exclusively:\n", len(res.Refusals))
	holders := map[string]bool{}
	var names []string
	for _, r := range res.Refusals {
		h := r.Reservation
		if !holders[h.Droid] {
			holders[h.Droid] = true
			names = append(names, h.Droid)
		}
		fmt.Fprintf(w, "  commit %s %q changes %s: reserved exclusively by %s (pattern %s%s, expires %s)\n",
			r.Commit[:min(12, len(r.Commit))], r.Subject, r.Path, h.Droid, h.Pattern, forIssue(h.IssueID), records.Relative(res.Now, h.Expiry()))
	}
	fmt.Fprintf(w, "ways out: ask the holder (git queen msg send --to %s --subject ...), wait for the reservation to end, "+
		"take the change out of the commits you push, or push anyway with git push --no-verify\n", strings.Join(names, ","))
	if res.Me == "" {
		fmt.Fprintln(w, "you have no droid identity, so every droid's exclusive reservations apply to you; "+errNoIdentity.Msg)
	}
}

type preCommitOptions struct {
	Env *Env
	G   globals
}

// errCheckFailed wraps anything that kept the check from running: the
// commit is refused, and the message says how to bypass the check.
type errCheckFailed struct {
	err  error
	push bool // the pre-push check, not a commit's
}

func (e *errCheckFailed) Error() string {
	if e.push {
		return fmt.Sprintf("the pre-push check could not run, so the push was refused: %v\n"+
			"fix the cause (git queen doctor may help), or push without the check: git push --no-verify", e.err)
	}
	return fmt.Sprintf("the pre-commit check could not run, so the commit was refused: %v\n"+
		"fix the cause (git queen doctor may help), or commit without the check: git commit --no-verify", e.err)
}

func (e *errCheckFailed) Unwrap() error { return e.err }

func runPreCommit(o preCommitOptions) error {
	o.Env = o.Env.guardEnv()
	res, err := preCommitCheck(o)
	if err != nil {
		return &errCheckFailed{err: err}
	}
	if o.G.JSON {
		out := map[string]any{"refused": res.Refused(), "result": res, "problems": problemsJSON(res.Problems)}
		if err := printJSON(o.Env.Stdout, out); err != nil {
			return err
		}
	} else {
		warnProblems(o.Env.Stderr, res.Problems)
		if res.Refused() {
			printRefusal(o.Env.Stderr, res, res.Me)
		}
	}
	if res.Refused() {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

func preCommitCheck(o preCommitOptions) (*precommit.Result, error) {
	repo, err := gitrepo.Discover(o.Env.Dir)
	if err != nil {
		return nil, err
	}
	in := precommit.Input{Repo: repo, Identity: func() string { return o.Env.identity(o.G) }, ReportIdentity: o.G.JSON}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return nil, err
	}
	in.Store = s
	if in.Registry, in.Limit, err = loadValidateConfig(o.Env, o.G, repo.TopLevel); err != nil {
		return nil, err
	}
	return precommit.Run(in)
}

func printRefusal(w io.Writer, res *precommit.Result, me string) {
	if len(res.Refusals) > 0 {
		fmt.Fprintf(w, "git-queen: commit refused: %d staged path(s) reserved by other droids:\n", len(res.Refusals))
		holders := map[string]bool{}
		for _, r := range res.Refusals {
			h := r.Reservation
			holders[h.Droid] = true
			issue := ""
			if h.IssueID != "" {
				issue = ", issue " + h.IssueID
			}
			fmt.Fprintf(w, "  %s: reserved exclusively by %s (pattern %s%s, expires %s)\n",
				r.Path, h.Droid, h.Pattern, issue, records.Relative(res.Now, h.Expiry()))
		}
		var names []string
		for h := range holders {
			names = append(names, h)
		}
		fmt.Fprintf(w, "ways out: ask the holder (git queen msg send --to %s --subject ...), wait for the reservation to end, "+
			"unstage those paths, or commit anyway with git commit --no-verify\n", strings.Join(names, ","))
		if me == "" {
			fmt.Fprintln(w, "you have no droid identity, so every droid's exclusive reservations apply to you; "+errNoIdentity.Msg)
		}
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
