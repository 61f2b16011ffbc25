package commands

import (
	"cmp"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// newSyncCmd builds `sync`; like newReserveCmd, it hands runF the request its
// argv gives.
func newSyncCmd(env *Env, runF func(call[app.SyncRequest]) error) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "exchange the coordination records with a remote (fetch, union, compare-and-swap push)",
		ArgsUsage: "[REMOTE]",
		Description: `Every clone keeps its records in the repository's live store and their
history on the ref refs/queen/ledger. sync fetches the remote's ledger,
merges it with this clone's (a union of record versions: no conflicts),
brings the other clones' records into the live store, and pushes the result
with a compare-and-swap; when another clone pushed first, it fetches and
merges again. After a round of syncs every clone holds the same records.

REMOTE defaults to queen.remote (git queen init --remote NAME sets it). It is
the name of one of the repository's remotes, or a URL: a path (relative to
the current directory), file://, http(s)://, ssh://, git:// or host:path. A
remote helper URL (ext::, fd::, ...) runs a program, so it is accepted only
as a configured remote. The transfer is git's own fetch and push, so the
remote's URL, credentials and protocol work as they do for your branches;
pre-push hooks are not run for the ledger.

Each fetch and push is stopped, with every process it started, after ` + ledgersync.DefaultTimeout.String() + `
without finishing: git config queen.timeout 2m (or QUEEN_TIMEOUT=2m for one
command) allows longer.

An exclusive reservation granted with --offline that overlaps a reservation
another clone published first is withdrawn here, named, and sync exits 5;
so is an assignment made with --offline of an issue that another clone's
assignment, published first, holds.`,
		Action: optionalArg("REMOTE", func(c *cli.Context, remote string) error {
			return runF(call[app.SyncRequest]{Env: env, G: readGlobals(c), Req: app.SyncRequest{Remote: remote}})
		}),
	}
}

func runSync(o call[app.SyncRequest]) error {
	return showRefusal[*app.ConflictError](o.Env, o.G, app.Sync, o.Req, func(res *ledgersync.Result) error {
		printSync(o.Env, res)
		return nil
	})
}

func printSync(e *Env, res *ledgersync.Result) {
	w := e.Stdout
	switch {
	case len(res.Sent) == 0 && len(res.Received) == 0 && res.Pushed && len(res.SetAside) > 0:
		fmt.Fprintf(w, "synced with %s: nothing new either way; pushed this clone's ledger in place of the one set aside (ledger %s)\n",
			res.Remote, shortID(res.Ledger))
	case len(res.Sent) == 0 && len(res.Received) == 0 && res.Pushed: // the remote lost what it had (a push by hand)
		fmt.Fprintf(w, "synced with %s: nothing new either way; pushed back what %s's ledger lacked of this clone's (ledger %s)\n",
			res.Remote, res.Remote, shortID(res.Ledger))
	case len(res.Sent) == 0 && len(res.Received) == 0:
		fmt.Fprintf(w, "synced with %s: nothing new either way (ledger %s)\n", res.Remote, shortID(res.Ledger))
	default:
		fmt.Fprintf(w, "synced with %s: sent %s; received %s (ledger %s)\n", res.Remote,
			res.Sent, res.Received, shortID(res.Ledger))
	}
	printSyncNotes(e, res)
	now := e.Now()
	for _, wd := range res.Withdrawn {
		if wd.GivenBack {
			fmt.Fprintf(e.Stderr, "git-queen: withdrew %s's reservation %s (%s): %s\n", wd.Lost.Droid, wd.Lost.Pattern, wd.Lost.ID, givenBack(wd.Winner.Droid, wd.Winner.Pattern))
			continue
		}
		fmt.Fprintf(e.Stderr, "git-queen: withdrew %s's reservation %s (%s): %s's %s%s, published on %s first, overlaps it (expires %s; e.g. %s)\n",
			wd.Lost.Droid, wd.Lost.Pattern, wd.Lost.ID, wd.Winner.Droid, wd.Winner.Pattern, forIssue(wd.Winner.IssueID),
			res.Remote, relTime(now, wd.Winner.Expiry()), witnessOr(wd.Witness))
	}
	printAssignmentWithdrawals(e, res, "")
}

// givenBack says why a sync withdrew a grant made with --steal from what
// of holder.
func givenBack(holder, what string) string {
	return fmt.Sprintf("its --steal of %s's %s was not published before %s was seen again, so %s has it back", holder, what, holder, holder)
}

func witnessOr(w string) string {
	if w == "" {
		return "the patterns were too complex to compare"
	}
	return w + " matches both"
}

// shortID is a ledger's id as a line shows it: its first 12 characters,
// or "empty".
func shortID(id string) string { return cmp.Or(id[:min(12, len(id))], "empty") }

// printSyncNotes says on stderr what a sync (or a reserve that synced) set
// aside, rebuilt, and read of the clocks: once per round, not per record.
func printSyncNotes(e *Env, res *ledgersync.Result) {
	if res.Rebuilt != "" {
		fmt.Fprintf(e.Stderr, "git-queen: this clone's ledger could not be trusted (%s); it was rebuilt from the live store, and nothing was lost\n", res.Rebuilt)
	}
	for _, a := range res.SetAside {
		fmt.Fprintf(e.Stderr, "git-queen: set aside %s; %s\n", a, a.Fix())
	}
	if res.Aliased != "" {
		fmt.Fprintf(e.Stderr, "git-queen: warning: %s\n", res.Aliased)
	}
	if res.Future > 0 {
		fmt.Fprintf(e.Stderr, "git-queen: warning: %d reservation version(s) from other clones claim times up to %s ahead of this machine's clock; "+
			"each ends here at most its time-to-live after it arrived\n", res.Future, records.ShortDuration(res.FutureBy))
	}
	for _, c := range res.Clocks {
		fmt.Fprintf(e.Stderr, "git-queen: warning: %s\n", c)
	}
	if res.ClockOff != nil {
		fmt.Fprintf(e.Stderr, "git-queen: warning: most clones' commits show this machine's clock off: exclusive reservations are refused here until it is right: %v\n", res.ClockOff.Reason())
	}
}
