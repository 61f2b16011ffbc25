package app

import (
	"fmt"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// ReservationsRequest filters the reservations listed.
type ReservationsRequest struct {
	All   bool   `json:"all,omitempty" jsonschema:"include released and expired reservations"`
	Path  string `json:"path,omitempty" jsonschema:"only the reservations that hold this path (a directory: anything in it, as check judges it)"`
	Droid string `json:"droid,omitempty" jsonschema:"only this droid's reservations"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many, the most recent (default 50); the result's more says how many were left out"`
}

// ReservationRow is one reservation listed: its record as written, and
// whether it is active and published.
type ReservationRow struct {
	records.Reservation
	Active    bool  `json:"active"`
	Published *bool `json:"published,omitempty"`
	// ForcedBy names the droid that changed this reservation against its
	// holder (a forced release or renewal).
	ForcedBy string `json:"forced_by,omitempty"`
	// Live is the reservation as the store resolved it, for a listing.
	Live reservations.Live `json:"-"`
}

// ReservationsResult is the reservations listed (the most recent last),
// how many the limit left out, and the lines that could not be read.
type ReservationsResult struct {
	More         int              `json:"more,omitempty"`
	Problems     []Problem        `json:"problems"`
	Reservations []ReservationRow `json:"reservations"`
	// Waiting is the queue (reserve --wait), first in line first, when
	// anyone waits (waitingRows).
	Waiting []WaitingRow `json:"waiting,omitempty"`
	// Me is the droid the listing is for ("" for none), by whose clock a
	// reservation received from another clone ends.
	Me string `json:"-"`
}

// Reservations lists reservations: every worktree's, and every clone's
// that sync or fetch brought in.
var Reservations = UseCase[ReservationsRequest, *ReservationsResult]{Name: "reservations", run: listReservations}

func listReservations(e *Env, r ReservationsRequest) (*ReservationsResult, error) {
	if err := checkLimit(r.Limit); err != nil {
		return nil, err
	}
	r.Droid = records.CanonicalDroid(r.Droid)
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	f := reservations.Filter{All: r.All, Droid: r.Droid, Me: e.Identity()}
	if r.Path != "" {
		if f.Paths, err = e.pathFilters(s, r.Path); err != nil {
			return nil, err
		}
	}
	list, problems, err := (&reservations.Store{S: s}).List(f)
	if err != nil {
		return nil, err
	}
	list, more := LastN(list, r.Limit)
	now := e.Now()
	// With a remote, a reservation whose latest version this clone wrote
	// after its last sync is not on the remote yet: other clones do not
	// see it (an --offline grant, a release or renewal not synced).
	remote := ledgersync.ConfiguredRemote(s)
	var local string
	var since int64
	if remote != "" {
		local, since = s.Log(records.ReservationsFile).Path, ledgersync.PublishedOffset(s.WS, ledger.TrackingName(remote), records.ReservationsFile)
	}
	res := &ReservationsResult{More: more, Problems: Problems(problems), Reservations: make([]ReservationRow, 0, len(list)), Me: f.Me}
	for _, l := range list {
		row := ReservationRow{Reservation: l.Reservation, Active: l.ActiveFor(f.Me, now), ForcedBy: l.ForcedBy(), Live: l}
		if remote != "" {
			published := !l.WrittenSince(local, since)
			row.Published = &published
		}
		res.Reservations = append(res.Reservations, row)
	}
	res.Waiting, err = waitingRows(s, f)
	return res, err
}

// pathFilters are the paths check judges for path (where a symlink leads
// it, and the link itself), each a directory when check judges it as one:
// held when anything in it is.
func (e *Env) pathFilters(s *store.Store, path string) ([]reservations.PathFilter, error) {
	judged, err := e.judgedPaths(s, []string{path})
	if err != nil {
		return nil, err
	}
	_, dirs, err := splitDirs(s, judged)
	if err != nil {
		return nil, err
	}
	out := make([]reservations.PathFilter, len(judged))
	for i, j := range judged {
		out[i] = reservations.PathFilter{Path: j.path, Directory: slices.Contains(dirs, j.path)}
	}
	return out, nil
}

// Problem is an unreadable line a listing skipped.
type Problem struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Msg  string `json:"message"`
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// Problems are problems as a result lists them.
func Problems(problems []jsonl.Problem) []Problem {
	out := make([]Problem, 0, len(problems))
	for _, p := range problems {
		out = append(out, Problem{p.File, p.Line, p.Msg})
	}
	return out
}

// checkLimit refuses a negative limit, which LastN reads as "all": the
// caller asked for something, and all of a listing can be a great deal.
// The front end names the command.
func checkLimit(n int) error {
	if n < 0 {
		return usagef("", "%s is %d; give a positive number, or 0 for all", wording.Param("limit"), n)
	}
	return nil
}

// LastN keeps the last n of list (all when n <= 0), and says how many it
// left out.
func LastN[T any](list []T, n int) ([]T, int) {
	if n <= 0 || len(list) <= n {
		return list, 0
	}
	return list[len(list)-n:], len(list) - n
}

// WaitingRow is a place in the queue for paths, as reservations lists it:
// the place as written (status "waiting"; expires_at is when it lapses
// unless its waiter renews it), its position among the places that
// contest its paths (1: next), and the droids it waits for.
type WaitingRow struct {
	records.Reservation
	Position int      `json:"position"`
	WaitsFor []string `json:"waits_for"`
}

// waitingRows is the queue a listing shows: the places f keeps, in line.
func waitingRows(s *store.Store, f reservations.Filter) ([]WaitingRow, error) {
	queue, err := (&reservations.Store{S: s}).Queue(f)
	if err != nil || len(queue) == 0 {
		return nil, err
	}
	rows := make([]WaitingRow, 0, len(queue))
	for _, st := range queue {
		rows = append(rows, WaitingRow{Reservation: st.Place, Position: st.Position, WaitsFor: jsonline.NonNil(st.WaitsFor)})
	}
	return rows, nil
}
