package commands

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/assignments"
	"github.com/git-queen/git-queen/internal/ledgersync"
	"github.com/git-queen/git-queen/internal/store"
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

// assignFlags are the flags assign and claim share; force says what
// --force does for the one or the other.
func assignFlags(o *assignOptions, force string) []cli.Flag {
	return []cli.Flag{reasonFlag(&o.Reason),
		&cli.StringFlag{Name: "worktree", Destination: &o.Worktree, Usage: "the worktree `NAME` the droid works in (default: this one)"},
		&cli.BoolFlag{Name: "force", Destination: &o.Force, Usage: force},
		&cli.BoolFlag{Name: "offline", Destination: &o.Offline, Usage: "with a remote configured, assign on this machine without publishing (the next sync publishes it, or withdraws it if another clone's assignment got there first)"},
	}
}

// assignJSON is assign's and claim's --json output: what was assigned, and
// where it stands with the remote.
type assignJSON struct {
	assignments.Result
	// Remote is the remote the assignment was published to ("" without
	// one); Published is false for one only this clone knows of.
	Remote    string             `json:"remote,omitempty"`
	Published bool               `json:"published"`
	Sync      *ledgersync.Result `json:"sync,omitempty"`
}

func runAssign(o assignOptions) error {
	me := o.Env.identity(o.G)
	by := me
	if o.Claim {
		if me == "" {
			return errNoIdentity
		}
		o.Droid = me
	} else if by == "" {
		by = "human"
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	if o.Worktree == "" && s.WS.Repo != nil && s.WS.Repo.TopLevel != "" {
		o.Worktree = filepath.Base(s.WS.Repo.TopLevel)
	}
	req := assignments.Request{IssueID: o.Issue, Droid: o.Droid, By: by, Reason: o.Reason, Worktree: o.Worktree, Force: o.Force}
	out := assignJSON{Remote: configuredRemote(s)}
	if out.Remote != "" && !o.Offline {
		var ar *ledgersync.AssignResult
		ar, err = assignPublished(o, s, me, out.Remote, req)
		if ar != nil {
			out.Result, out.Sync = ar.Result, ar.Sync
		}
		out.Published = err == nil
	} else {
		out.Result, err = (&assignments.Store{S: s}).Assign(req)
		out.Published = out.Remote == ""
	}
	var taken *assignments.AlreadyAssignedError
	if errors.As(err, &taken) && o.G.JSON {
		// What the refusal ran into, on stdout, as reserve prints its
		// conflicts; the error itself goes to stderr.
		if jerr := printJSON(o.Env.Stdout, map[string]any{"assigned": nil, "held": taken.Active, "withdrawn": taken.Withdrawn,
			"remote": out.Remote, "published": false, "sync": out.Sync}); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return err
	}
	if o.G.JSON {
		return printJSON(o.Env.Stdout, out)
	}
	if out.Replaced != nil {
		fmt.Fprintf(o.Env.Stdout, "reassigned %s from %s to %s (%s)\n", o.Issue, out.Replaced.Droid, o.Droid, out.Assigned.ID)
		printNotified(o.Env, out.Notified)
	} else {
		fmt.Fprintf(o.Env.Stdout, "assigned %s to %s (%s)\n", o.Issue, o.Droid, out.Assigned.ID)
	}
	switch {
	case out.Remote == "":
	case out.Published:
		fmt.Fprintf(o.Env.Stdout, "published to %s\n", out.Remote)
	default:
		fmt.Fprintf(o.Env.Stdout, "not published yet: the next git queen sync publishes it to %s, or withdraws it if another clone's assignment of %s got there first\n",
			out.Remote, o.Issue)
	}
	return nil
}

// assignPublished assigns through the remote (ledgersync.Syncer.Assign).
func assignPublished(o assignOptions, s *store.Store, me, remote string, req assignments.Request) (*ledgersync.AssignResult, error) {
	sy, err := o.Env.openSyncer(s, me)
	if err != nil {
		return nil, err
	}
	defer sy.Close()
	ar, err := sy.Assign(remote, req)
	if ar != nil && ar.Sync != nil && !o.G.JSON {
		printSyncNotes(o.Env, ar.Sync)
		lost := ""
		if ar.Assigned.ID != "" {
			lost = ar.Assigned.ID // its own withdrawal is the error below
		}
		printAssignmentWithdrawals(o.Env, ar.Sync, lost)
		if ar.Undone != nil {
			printNotified(o.Env, ar.Undone.Notified)
		}
	}
	return ar, err
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
		fmt.Fprintf(e.Stderr, "git-queen: withdrew %s's assignment of %s (%s): %s's assignment %s (since %s), published on %s first, holds it\n",
			w.Lost.Droid, w.Lost.IssueID, w.Lost.ID, w.Winner.Droid, w.Winner.ID, relTime(now, w.Winner.CreatedAt), res.Remote)
	}
}

// lostAny says whether a sync withdrew any of this clone's grants: sync
// exits 5 for it.
func lostAny(res *ledgersync.Result) bool {
	return len(res.Withdrawn) > 0 || len(res.WithdrawnAssignments) > 0
}
