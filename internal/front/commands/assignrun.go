package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// acrossClones is what assign and claim say of clones in their help.
const acrossClones = `With a remote configured (git queen init --remote NAME), an assignment holds
across machines the way an exclusive reservation does: the command fetches
the remote's ledger, checks every clone's assignments, and reports the
assignment only once a compare-and-swap push has published it, so clones
racing to claim one issue get one assignment and the others exit 5 naming
the winner. When the remote cannot be reached it fails and assigns nothing;
--offline assigns on this machine alone (listed as unpublished), and the next
git queen sync publishes it, or withdraws it (exit 5, naming the winner) if
another clone's assignment of the issue got there first.`

// assignFlags are the flags assign and claim share, writing into their
// requests; forceUsage says what --force does for the one or the other.
func assignFlags(reason, worktree *string, force, offline *bool, forceUsage string) []cli.Flag {
	return []cli.Flag{reasonFlag(reason),
		&cli.StringFlag{Name: "worktree", Destination: worktree, Usage: "the worktree `NAME` the droid works in (default: this one)"},
		&cli.BoolFlag{Name: "force", Destination: force, Usage: forceUsage},
		&cli.BoolFlag{Name: "offline", Destination: offline, Usage: "with a remote configured, assign on this machine without publishing (the next sync publishes it, or withdraws it if another clone's assignment got there first)"},
	}
}

func runAssign(o call[app.AssignRequest]) error {
	res, err := app.Assign.Run(o.Env.session(o.G), o.Req)
	return printAssigned(o.Env, o.G, o.Req.Issue, res, err)
}

func runClaim(o call[app.ClaimRequest]) error {
	res, err := app.Claim.Run(o.Env.session(o.G), o.Req)
	return printAssigned(o.Env, o.G, o.Req.Issue, res, err)
}

// printAssigned prints what assign or claim of issue did.
func printAssigned(env *Env, g globals, issue string, res *app.AssignResult, err error) error {
	if g.JSON {
		// What a refusal ran into goes on stdout, as reserve prints its
		// conflicts; the error itself goes to stderr.
		return printOutcome[*assignments.AlreadyAssignedError](env, res, true, err)
	}
	if res != nil && res.Sync != nil {
		printSyncNotes(env, res.Sync)
		printAssignmentWithdrawals(env, res.Sync, res.Lost)
		if res.Undone != nil {
			printNotified(env, res.Undone.Notified)
		}
	}
	if err != nil {
		return err
	}
	droid := res.Assigned.Droid
	if res.Replaced != nil {
		fmt.Fprintf(env.Stdout, "reassigned %s from %s to %s (%s)\n", issue, res.Replaced.Droid, droid, res.Assigned.ID)
		printNotified(env, res.Notified)
	} else {
		fmt.Fprintf(env.Stdout, "assigned %s to %s (%s)\n", issue, droid, res.Assigned.ID)
	}
	printPublished(env, res.Remote, res.Published, ", or withdraws it if another clone's assignment of "+issue+" got there first")
	return nil
}

// printAssignmentWithdrawals says on stderr which of this clone's
// unpublished assignments a sync (or a round of assign) withdrew, and who
// won each, except the one with id except.
func printAssignmentWithdrawals(e *Env, res *ledgersync.Result, except string) {
	now := e.Now()
	for _, w := range res.WithdrawnAssignments {
		if w.Lost.ID == except {
			continue
		}
		if w.GivenBack {
			fmt.Fprintf(e.Stderr, "git-queen: withdrew %s's assignment of %s (%s): %s\n", w.Lost.Droid, w.Lost.IssueID, w.Lost.ID, givenBack(w.Winner.Droid, w.Winner.IssueID))
			continue
		}
		fmt.Fprintf(e.Stderr, "git-queen: withdrew %s's assignment of %s (%s): %s's assignment %s (since %s), published on %s first, holds it\n",
			w.Lost.Droid, w.Lost.IssueID, w.Lost.ID, w.Winner.Droid, w.Winner.ID, relTime(now, w.Winner.CreatedAt), res.Remote)
	}
}
