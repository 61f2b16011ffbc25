package commands

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
)

// waitHelp is the part of reserve's help about --wait.
const waitHelp = `With --wait, a request that the paths' holders refuse joins a queue instead
of failing: it waits, and is granted when the holders release or their
reservations expire and every droid that queued for those paths earlier
has had its turn (first come first served; only requests whose paths
overlap wait for each other). While it waits, git queen reservations lists
its place (who waits, for what, in what position) on every clone the place
reached, and a plain reserve of those paths is refused (exit 5). It prints
one line on stderr when it queues, and the grant on stdout as reserve
does. --timeout DUR gives up after DUR: the place is withdrawn and it exits
5 naming what still stood ahead; Ctrl-C withdraws it too (exit 1), and so
does a hang-up or the death of the git that runs it (kill -9 of git). A
git-queen that is itself killed leaves the queue on its own: its place
lapses seven minutes after it last renewed it (a waiter renews every
minute; the lease spans the 5 minutes clocks may be apart, so that a
waiter whose clock is slow stays in line), and whoever is behind moves up. Two droids that each hold what
the other queues for would wait for each other until a reservation
expired: the later of the two in line is refused at once (exit 5), told
what it holds that the other waits for, and leaves the queue.

The order is the time each place was made, by the clock of the clone that
made it (equal times: by id). Two droids who queued on different clones
before either synced are put in that order once their places meet; a grant
published through the remote is checked against every place the remote
holds. With a remote configured, a waiter syncs every 10 seconds while it
waits (publishing its place, bringing in releases), and any sync in its
clone wakes it at once: a holder in another clone is seen to release once
that release reaches the remote (git queen sync there, or queen.autosync).
Without a remote, the queue is this repository's worktrees, and a waiter
wakes within a fraction of a second of a release.

  git queen reserve src/api/ --wait --timeout 30m

Clones running a git-queen older than the queue set the places aside when
they sync (record versions that break the status rule, said once per
sync), keep them in the ledger, and do not wait behind them.

`

// reserveOrWait runs reserve, through the queue when --wait says so, with
// Ctrl-C (and SIGTERM, a hang-up, the death of the git that ran it; see
// stoppableWait) ending a wait cleanly: the place is withdrawn.
func reserveOrWait(o call[app.ReserveWaitRequest]) (*app.ReserveResult, *app.ReserveWaitResult, error) {
	a := o.Env.session(o.G)
	if o.Req.Wait {
		ctx, stop := stoppableWait(o.Env.Ctx)
		defer stop()
		saved := a.Ctx
		a.Ctx = ctx
		defer func() { a.Ctx = saved }()
	}
	wr := o.Req
	if !o.G.JSON {
		wr.Queued = func(ahead []reservations.Conflict) { printQueued(o.Env, ahead) }
	}
	res, err := app.ReserveQueued.Run(a, wr)
	if res == nil {
		return nil, nil, err
	}
	return res.ReserveResult, res, err
}

// printQueued says, on stderr, that the request joined the queue and what
// stands ahead of it.
func printQueued(env *Env, ahead []reservations.Conflict) {
	now := env.Now()
	var parts []string
	for _, c := range ahead {
		if c.Held.Status == records.ReservationWaiting {
			parts = append(parts, fmt.Sprintf("%s (queued %s for %s)", c.Held.Droid, relTime(now, c.Held.CreatedAt), c.Held.Pattern))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (holds %s, expires %s)", c.Held.Droid, c.Held.Pattern, relTime(now, c.Held.Expiry())))
	}
	fmt.Fprintf(env.Stderr, "git-queen: queued; waiting behind %s\n", strings.Join(parts, ", "))
}

// placeRow is what the EXPIRES and REASON columns of reservations --all
// say of a place in the queue; ok is false for a reservation.
func placeRow(r records.Reservation, now time.Time) (expires, reason string, ok bool) {
	if why, ended := reservations.PlaceEnded(r); ended {
		return "left the queue", why, true
	}
	if r.Status != records.ReservationWaiting {
		return "", "", false
	}
	if reservations.WaitingAt(r, now) {
		return "waiting; lapses " + relTime(now, reservations.PlaceEnd(r)), r.Reason, true
	}
	return "waited; lapsed " + relTime(now, reservations.PlaceEnd(r)), r.Reason, true
}

// printQueue prints who waits for what, first in line first.
func printQueue(env *Env, waiting []app.WaitingRow) error {
	if len(waiting) == 0 {
		return nil
	}
	now := env.Now()
	fmt.Fprintln(env.Stdout, "\nwaiting (reserve --wait; first come first served):")
	t := newTable(env.Stdout, "POS", "PATTERN", "DROID", "QUEUED", "WAITS FOR", "LAPSES", "ISSUE", "ID")
	for _, w := range waiting {
		waitsFor := cmp.Or(strings.Join(w.WaitsFor, ","), "nobody (being granted)")
		t.row(fmt.Sprint(w.Position), w.Pattern, w.Droid, relTime(now, w.CreatedAt), waitsFor,
			relTime(now, reservations.PlaceEnd(w.Reservation)), w.IssueID, w.ID)
	}
	return t.flush()
}
