package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
)

const patternHelp = `Patterns are doublestar globs (*, **, ?, [a-z], {a,b}) relative to the top of
the repository, wherever you run the command. A pattern ending in / means
everything under it. A path without wildcards means what it names in HEAD,
the index or the worktree: a file is that file alone (README.md conflicts
with **/*.md, not with **/*.go); a directory or a submodule is stored as
DIR/**, the path and everything beneath it; so is a path that does not exist
yet (create a new file first to reserve only it). Directories reached through
a symlink in the worktree are written where it leads, as the edit guard judges
edits (with lnk -> src, lnk/a.go is src/a.go and lnk/** is src/**). The command
says what it stored.`

// newReserveCmd builds `reserve`: its flags fill the request that runF
// receives. Tests pass a runF that keeps the call, so argv -> request is
// a table test without a repository (the seam gh's NewCmdX
// constructors have).
func newReserveCmd(env *Env, runF func(call[app.ReserveWaitRequest]) error) *cli.Command {
	o := call[app.ReserveWaitRequest]{Env: env}
	var ttl string
	var exclusive bool
	return &cli.Command{
		Name:      "reserve",
		Usage:     "reserve the paths some patterns match, exclusively unless --shared (exit 5 on a conflict)",
		ArgsUsage: "PATTERN...",
		Description: `Reservations tell other droids, and git-queen's hooks, which paths you are
working on. A reservation is exclusive unless you say --shared: nobody else
may reserve the paths, and the hooks refuse other droids' commits, merges
and pushes that touch them. An exclusive reservation conflicts with any other droid's
active reservation that could match a common path; a shared one (--shared:
"I am working here too", which the hook does not enforce) only with exclusive
ones. An exclusive request with conflicts reserves nothing and exits 5,
unless --force; a shared one is granted and lists the conflicts as warnings.
Every worktree of the repository shares one store, so a reservation binds
the others at once.

With a remote configured (git queen init --remote NAME), an exclusive
reservation holds across machines: reserve fetches the remote's ledger,
checks against every clone's reservations, and reports the grant only once
a compare-and-swap push has published it, so clones racing for overlapping
patterns get one grant. When the remote cannot be reached it fails and
grants nothing; --offline grants on this machine alone, and the next
git queen sync publishes the grant or withdraws it (exit 5, naming who won).

` + waitHelp + patternHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ttl", Value: "2h", Destination: &ttl, Usage: "how long it lasts: `DUR` such as 30m, 4h or 1d (from 1s to 7d)"},
			&cli.BoolFlag{Name: "shared", Destination: &o.Req.Shared, Usage: "a shared reservation: others may reserve shared too, and the hook does not refuse their commits"},
			&cli.BoolFlag{Name: "exclusive", Aliases: []string{"x"}, Destination: &exclusive, DefaultText: "true", Usage: "nobody else may reserve or commit these paths (the default); --exclusive=false is --shared, as in QueenBee"},
			&cli.StringFlag{Name: "reason", Aliases: reasonShort, Destination: &o.Req.Reason, Usage: "why, for whoever finds the conflict (`TEXT`)"},
			&cli.StringFlag{Name: "issue", Aliases: []string{"i"}, Destination: &o.Req.Issue, Usage: "the beads issue `ID` you work on"},
			&cli.BoolFlag{Name: "force", Aliases: forceShort, Destination: &o.Req.Force, Usage: "reserve despite conflicts"},
			&cli.BoolFlag{Name: "notify", Destination: &o.Req.Notify, Usage: "send each conflicting holder a message"},
			&cli.BoolFlag{Name: "steal", Destination: &o.Req.Steal, Usage: "take the paths from holders silent for longer than the team allows (see git queen droids): their reservations are released, marked stolen, and each is told; exit 5 while a holder has been seen lately"},
			&cli.BoolFlag{Name: "offline", Destination: &o.Req.Offline, Usage: "with a remote configured, grant an exclusive reservation on this machine without publishing it (the next sync publishes it, or withdraws it if another clone's got there first)"},
			&cli.BoolFlag{Name: "wait", Destination: &o.Req.Wait, Usage: "when the paths are held, queue for them and wait until they are yours (first come first served, across clones)"},
			&cli.StringFlag{Name: "timeout", Destination: &o.Req.Timeout, Usage: "with --wait: give up after `DUR` (30s, 10m, 1h) and leave the queue (exit 5); default: as long as it takes"},
		},
		Action: func(c *cli.Context) error {
			if o.Req.Shared && exclusive {
				return &UsageError{Command: "reserve", Msg: "--shared and --exclusive contradict each other; reservations are exclusive unless --shared"}
			}
			if err := refuseEmpty(c, "reserve", "timeout", "duration to wait (30s, 10m)", "wait as long as it takes"); err != nil {
				return err
			}
			d, err := app.ParseTTL("reserve", ttl)
			if err != nil {
				return err
			}
			// --exclusive=false is QueenBee's way to say --shared (its -x
			// defaults to true, and it has no --shared).
			o.Req.Shared = o.Req.Shared || (c.IsSet("exclusive") && !exclusive)
			o.G, o.Req.Patterns, o.Req.TTL = readGlobals(c), c.Args().Slice(), d.String()
			return runF(o)
		},
	}
}

func runReserve(o call[app.ReserveWaitRequest]) error {
	res, waited, err := reserveOrWait(o)
	if o.G.JSON {
		return printOutcome[*reservations.ConflictError](o.Env, waited, err == nil || res != nil, err)
	}
	if res != nil && res.Sync != nil {
		printSyncNotes(o.Env, res.Sync)
	}
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(o.Env.Stdout, n)
	}
	now := o.Env.Now()
	for _, r := range res.Granted {
		fmt.Fprintf(o.Env.Stdout, "reserved %s (%s, expires %s) %s\n", r.Pattern, kindWord(r.Exclusive), relTime(now, r.Expiry()), r.ID)
	}
	for _, r := range res.Stolen {
		fmt.Fprintf(o.Env.Stdout, "stole %s from %s (%s; %s was told)\n", r.Pattern, r.Droid, r.ID, r.Droid)
	}
	for _, c := range res.Conflicts {
		if len(res.Stolen) > 0 {
			break // each was stolen: printed above
		}
		if c.Held.Status == records.ReservationWaiting {
			fmt.Fprintf(o.Env.Stderr, "git-queen: warning: %s overlaps %s, which %s queued for first (waiting since %s); --force granted it ahead of the queue\n",
				c.Requested, c.Held.Pattern, c.Held.Droid, relTime(now, c.Held.CreatedAt))
			continue
		}
		fmt.Fprintf(o.Env.Stderr, "git-queen: warning: %s overlaps %s held %s by %s%s (expires %s; %s)\n",
			c.Requested, c.Held.Pattern, kindOf(c.Held), c.Held.Droid, forIssue(c.Held.IssueID), relTime(now, c.Held.Expiry()), c.Example())
	}
	for _, m := range res.Notified {
		fmt.Fprintf(o.Env.Stdout, "notified %s (%s)\n", m.To, m.ID)
	}
	if waited.Waited != "" {
		fmt.Fprintf(o.Env.Stdout, "waited %s in the queue\n", waited.Waited)
	}
	if res.Published || o.Req.Offline || o.Req.Shared {
		printPublished(o.Env, res.Remote, res.Published, "")
	}
	return nil
}

func kindOf(r records.Reservation) string {
	if r.Exclusive {
		return "exclusively"
	}
	return "shared"
}

func forIssue(id string) string {
	if id == "" {
		return ""
	}
	return " for " + id
}
