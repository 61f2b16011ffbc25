package commands

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/urfave/cli/v2"
)

// newReservationsCmd builds `reservations` (alias reserved); runF
// receives the request its flags fill (see newReserveCmd).
func newReservationsCmd(env *Env, runF func(call[app.ReservationsRequest]) error) *cli.Command {
	o := call[app.ReservationsRequest]{Env: env}
	return &cli.Command{
		Name:    "reservations",
		Aliases: []string{"reserved"},
		Usage:   "list active reservations: every worktree's, and every clone's that sync or fetch brought in",
		Description: `KIND says exclusive or shared, and what --force did: "forced" for a grant
made over other droids' reservations, "forced by ann" for a reservation ann
renewed or released (EXPIRES: "released by ann") against its holder.
--json gives each record as written (updated_by, forced) with active,
forced_by and, with a remote, published.

Droids waiting for paths (reserve --wait) follow, first in line first: the
POS(ition) among those waiting for the same paths (1: next), what they
wait for, and when each place lapses unless its waiter renews it; --json
lists them under "waiting" (position, waits_for) when anyone waits.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Destination: &o.Req.All, Usage: "include released and expired ones"},
			&cli.StringFlag{Name: "path", Destination: &o.Req.Path, Usage: "only those that hold `PATH` (a directory: anything in it, as check judges it)"},
			&cli.StringFlag{Name: "droid", Aliases: []string{"agent"}, Destination: &o.Req.Droid, Usage: "only this droid's (`NAME`)"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` rows, the most recent (0: all; with --all, a table shows the last " +
				fmt.Sprint(allTableLimit) + " unless told)"},
		},
		Action: noArgs("; filter with --path, --droid or --all", func(c *cli.Context) error {
			if err := refuseEmptyFilters(c, "path", "droid"); err != nil {
				return err
			}
			o.G, o.Req.Limit = readGlobals(c), c.Int("limit")
			if o.Req.All {
				// Every version ever written can be a long list: a
				// person gets the most recent unless they ask for more.
				o.Req.Limit = tableLimit(c, allTableLimit)
			}
			return runF(o)
		}),
	}
}

// allTableLimit is how many rows `reservations --all` prints in a table
// unless --limit says otherwise.
const allTableLimit = 100

func runReservations(o call[app.ReservationsRequest]) error {
	env := o.Env.session(o.G)
	if o.Req.Droid != "" {
		// Looking at what a droid holds (before stealing it from a
		// silent one) must not note it as seen.
		unseen := *env
		unseen.Unseen = true
		env = &unseen
	}
	res, err := app.Reservations.Run(env, o.Req)
	if err != nil {
		return err
	}
	if o.G.JSON {
		res.More = 0 // --json lists what --limit keeps, as it always has
		return printJSON(o.Env.Stdout, res)
	}
	warnProblems(o.Env.Stderr, res.Problems)
	if len(res.Reservations) == 0 {
		fmt.Fprintln(o.Env.Stdout, "no reservations")
		return printQueue(o.Env, res.Waiting) // reservewait.go
	}
	now := o.Env.Now()
	t := newTable(o.Env.Stdout, "PATTERN", "DROID", "KIND", "EXPIRES", "ISSUE", "REASON", "ID")
	for _, row := range res.Reservations {
		l := row.Live
		kind := kindWithForce(l.Reservation)
		if row.Published != nil && !*row.Published {
			kind += ", unpublished"
		}
		expires := relTime(now, l.Expiry())
		reason := l.Reason
		switch place, left, isPlace := placeRow(l.Reservation, now); {
		case isPlace: // a place in the queue (reserve --wait), listed by --all
			expires, reason = place, left
		case l.Status == records.ReservationReleased && l.Withdrawn != "":
			// Never granted where it counts: another clone's got there first.
			expires, reason = "withdrawn", l.Withdrawn
		case l.Status == records.ReservationReleased && l.ForcedBy() != "":
			expires = "released by " + l.ForcedBy()
		case l.Status == records.ReservationReleased:
			expires = "released"
		case !l.ActiveAt(now):
			expires = "expired " + relTime(now, l.Expiry())
		case !l.ActiveFor(res.Me, now):
			expires = "ends here " + relTime(now, l.Expiry()) + "; renew it"
		}
		t.row(l.Pattern, l.Droid, kind, expires, l.IssueID, truncate(reason, 40), l.ID)
	}
	if err := t.flushMore(o.Env.Stdout, res.More); err != nil {
		return err
	}
	return printQueue(o.Env, res.Waiting)
}

// kindWithForce is a reservation's kind, and what --force did to it: a
// grant made over others' reservations ("exclusive, forced"), or a change
// another droid made ("exclusive, forced by ann").
func kindWithForce(r records.Reservation) string {
	kind := kindWord(r.Exclusive)
	switch by := r.ForcedBy(); {
	case by != "" && r.Stolen:
		kind += ", stolen by " + by
	case by != "":
		kind += ", forced by " + by
	case r.Forced:
		kind += ", forced"
	}
	return kind
}
