package commands

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/ledger"
	"github.com/git-queen/git-queen/internal/ledgersync"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
	"github.com/urfave/cli/v2"
)

// newReservationsCmd builds `reservations` (alias reserved); runF
// receives the options its flags fill (see newReserveCmd).
func newReservationsCmd(env *Env, runF func(reservationsOptions) error) *cli.Command {
	o := reservationsOptions{Env: env}
	return &cli.Command{
		Name:    "reservations",
		Aliases: []string{"reserved"},
		Usage:   "list active reservations: every worktree's, and every clone's that sync or fetch brought in",
		Description: `KIND says exclusive or shared, and what --force did: "forced" for a grant
made over other droids' reservations, "forced by ann" for a reservation ann
renewed or released (EXPIRES: "released by ann") against its holder.
--json gives each record as written (updated_by, forced) with active,
forced_by and, with a remote, published.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Destination: &o.Filter.All, Usage: "include released and expired ones"},
			&cli.StringFlag{Name: "path", Destination: &o.Filter.Path, Usage: "only those that cover `PATH`"},
			&cli.StringFlag{Name: "droid", Aliases: []string{"agent"}, Destination: &o.Filter.Droid, Usage: "only this droid's (`NAME`)"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` rows, the most recent (0: all; with --all, a table shows the last " +
				fmt.Sprint(allTableLimit) + " unless told)"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return &UsageError{Command: "reservations", Msg: "reservations takes no arguments; filter with --path, --droid or --all"}
			}
			o.G, o.Limit = readGlobals(c), c.Int("limit")
			if o.Filter.All {
				// Every version ever written can be a long list: a
				// person gets the most recent unless they ask for more.
				o.Limit = tableLimit(c, allTableLimit)
			}
			return runF(o)
		},
	}
}

// allTableLimit is how many rows `reservations --all` prints in a table
// unless --limit says otherwise.
const allTableLimit = 100

type reservationsOptions struct {
	Env    *Env
	G      globals
	Filter reservations.Filter
	Limit  int // at most this many, the most recent; 0 for all
}

func runReservations(o reservationsOptions) error {
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	if o.Filter.Path != "" {
		if o.Filter.Path, err = repoPath(o.Env, s, o.Filter.Path); err != nil {
			return err
		}
	}
	o.Filter.Me = o.Env.identity(o.G)
	list, problems, err := (&reservations.Store{S: s}).List(o.Filter)
	if err != nil {
		return err
	}
	list, more := lastN(list, o.Limit)
	now := o.Env.Now()
	// With a remote, a reservation whose latest version this clone wrote
	// after its last sync is not on the remote yet: other clones do not
	// see it (an --offline grant, a release or renewal not synced).
	remote := configuredRemote(s)
	unpublished := func(reservations.Live) bool { return false }
	if remote != "" {
		local, since := s.Log(records.ReservationsFile).Path, ledgersync.PublishedOffset(s.WS, ledger.TrackingName(remote), records.ReservationsFile)
		unpublished = func(l reservations.Live) bool { return l.WrittenSince(local, since) }
	}
	if o.G.JSON {
		type row struct {
			records.Reservation
			Active    bool  `json:"active"`
			Published *bool `json:"published,omitempty"`
			// ForcedBy names the droid that changed this reservation
			// against its holder (a forced release or renewal).
			ForcedBy string `json:"forced_by,omitempty"`
		}
		rows := make([]row, 0, len(list))
		for _, l := range list {
			r := row{Reservation: l.Reservation, Active: l.ActiveFor(o.Filter.Me, now), ForcedBy: l.ForcedBy()}
			if remote != "" {
				published := !unpublished(l)
				r.Published = &published
			}
			rows = append(rows, r)
		}
		return printJSON(o.Env.Stdout, map[string]any{"reservations": rows, "problems": problemsJSON(problems)})
	}
	warnProblems(o.Env.Stderr, problems)
	if len(list) == 0 {
		fmt.Fprintln(o.Env.Stdout, "no reservations")
		return nil
	}
	t := newTable(o.Env.Stdout, "PATTERN", "DROID", "KIND", "EXPIRES", "ISSUE", "REASON", "ID")
	for _, l := range list {
		kind := kindWithForce(l.Reservation)
		if unpublished(l) {
			kind += ", unpublished"
		}
		expires := relTime(now, l.Expiry())
		reason := l.Reason
		switch {
		case l.Status == records.ReservationReleased && l.Withdrawn != "":
			// Never granted where it counts: another clone's got there first.
			expires, reason = "withdrawn", l.Withdrawn
		case l.Status == records.ReservationReleased && l.ForcedBy() != "":
			expires = "released by " + l.ForcedBy()
		case l.Status == records.ReservationReleased:
			expires = "released"
		case !l.ActiveAt(now):
			expires = "expired " + relTime(now, l.Expiry())
		case !l.ActiveFor(o.Filter.Me, now):
			expires = "ends here " + relTime(now, l.Expiry()) + "; renew it"
		}
		t.row(l.Pattern, l.Droid, kind, expires, l.IssueID, truncate(reason, 40), l.ID)
	}
	if err := t.flush(); err != nil {
		return err
	}
	moreLine(o.Env.Stdout, more)
	return nil
}

// kindWithForce is a reservation's kind, and what --force did to it: a
// grant made over others' reservations ("exclusive, forced"), or a change
// another droid made ("exclusive, forced by ann").
func kindWithForce(r records.Reservation) string {
	kind := kindWord(r.Exclusive)
	switch by := r.ForcedBy(); {
	case by != "":
		kind += ", forced by " + by
	case r.Forced:
		kind += ", forced"
	}
	return kind
}
