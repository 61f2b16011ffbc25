// Package reservations is the reservation store of seed 002: a droid claims
// the paths a glob matches for a while, exclusively or not, and the
// pre-commit hook and other droids respect the claim.
//
// Two things the seed's plan got wrong are fixed here. The conflict check
// and the append happen under one repository-wide lock, so two droids racing
// for the same paths cannot both win; and overlap between patterns is
// decided exactly (package globs), with a path that matches both as proof.
package reservations

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// DefaultTTL is how long a reservation lasts unless asked otherwise.
const DefaultTTL = 2 * time.Hour

// MaxTTL bounds a reservation's life. Readers of several worktrees' logs
// need to see the release of any reservation that could still be active,
// and they only look back this far.
const MaxTTL = records.MaxReservationTTL

// Store reads and writes queen_reservations.jsonl.
type Store struct {
	S *store.Store
}

// Request asks for the paths some patterns match.
type Request struct {
	// Patterns are normalised by the caller (see Normalize) and validated:
	// those Normalized vouches for are taken as they are, the others
	// normalised again.
	Patterns   []string
	Normalized *Normalized
	Droid      string
	TTL        time.Duration
	Exclusive  bool
	Reason     string
	IssueID    string
	// Force grants an exclusive request despite conflicts.
	Force bool
	// Notify messages the holder of each conflicting reservation.
	Notify bool
	// Steal, when set, takes the conflicting reservations of the holders
	// it allows (see steal.go).
	Steal StealCheck
	// Places are the droid's places in the queue (Join) when it asks as a
	// waiter: see waiters.go.
	Places []Live
}

// Conflict is an active reservation of another droid that overlaps a
// requested pattern, where at least one of the two is exclusive.
type Conflict struct {
	Requested string              `json:"requested"`
	Held      records.Reservation `json:"held"`
	// Witness is a path both patterns match; empty when the patterns were
	// too complex to compare exactly and were treated as overlapping.
	Witness string `json:"witness"`
}

// Example says why the patterns conflict, for a person: the witness, or
// that the comparison gave up and erred on the side of the holder.
func (c Conflict) Example() string {
	if c.Witness == "" {
		return "too complex to compare exactly, so treated as overlapping"
	}
	return "e.g. " + c.Witness + " matches both"
}

// Result is what Reserve did.
type Result struct {
	Granted   []records.Reservation `json:"granted"`
	Conflicts []Conflict            `json:"conflicts"`
	// Notified lists the messages --notify sent.
	Notified []records.Message `json:"notified,omitempty"`
	// Stolen lists the reservations --steal released.
	Stolen []records.Reservation `json:"stolen,omitempty"`
	// before are the versions Stolen released, as they were, for
	// GiveBackIn.
	before [][]byte
}

// ConflictError refuses an exclusive request that conflicts with other
// droids' reservations. Nothing was granted. (Exit code 5, seed 002.)
type ConflictError struct {
	Conflicts []Conflict
	Notified  []records.Message
	Now       time.Time
}

func (e *ConflictError) Error() string { return e.Text().String() }

// Text is the conflict's message, which names the switches and commands
// that resolve it, for a front end to say in its own words.
func (e *ConflictError) Text() wording.Text {
	advice := wording.Textf("ask the holder (%s, or reserve again with %s), wait, or ", wording.Run("msg send"), wording.Switch("notify"))
	if len(e.Notified) > 0 {
		advice = wording.Textf("notified %d holder(s); ", len(e.Notified))
	}
	return wording.Textf("reservation conflict; nothing was reserved:%s\n%suse %s to reserve anyway", e.Listing(), advice, wording.Switch("force"))
}

// Listing is a line for each conflict, each after a newline: what it
// overlaps, whose it is, and until when.
func (e *ConflictError) Listing() wording.Text {
	var format strings.Builder
	var args []any
	say := func(f string, a ...any) { format.WriteString(f); args = append(args, a...) }
	for _, c := range e.Conflicts {
		if c.Held.Status == records.ReservationWaiting {
			say("\n  %s overlaps %s, which %s queued for first (%s)", c.Requested, c.Held.Pattern, c.Held.Droid, queuedSince(e.Now, c))
			continue
		}
		say("\n  %s overlaps %s held by %s", c.Requested, c.Held.Pattern, c.Held.Droid)
		if c.Held.IssueID != "" {
			say(" for %s", c.Held.IssueID)
		}
		say(" (expires %s; %s)", records.Relative(e.Now, c.Held.Expiry()), c.Example())
	}
	return wording.Textf(format.String(), args...)
}

func (r *Request) validate() error {
	if err := records.ValidateDroid(r.Droid); err != nil {
		return err
	}
	r.TTL = cmp.Or(r.TTL, DefaultTTL)
	if r.TTL < 0 || r.TTL > MaxTTL {
		return records.Invalidf("ttl %s is out of range: reservations last from a second to %s (renew to keep one longer)", r.TTL, MaxTTL)
	}
	if len(r.Patterns) == 0 {
		return records.Invalidf("no pattern to reserve")
	}
	if r.IssueID != "" {
		if err := records.ValidateNewIssueID(r.IssueID); err != nil {
			return err
		}
	}
	if err := records.ValidateReason(r.Reason); err != nil {
		return err
	}
	for i, p := range r.Patterns {
		if r.Normalized.has(p) {
			continue
		}
		n, err := Normalize(p, nil)
		if err != nil {
			return err
		}
		r.Patterns[i] = n
	}
	return nil
}

// Reserve checks the request against every active reservation and
// appends the grants, all under the repository lock. A request for a
// pattern the droid already holds renews that reservation instead of
// adding a second one.
func (s *Store) Reserve(req Request) (Result, error) {
	var res Result
	err := s.S.Update(func(tx *jsonl.Tx) error {
		var err error
		res, err = s.ReserveIn(tx, req)
		return err
	})
	return res, err
}

// ReserveIn is Reserve inside a write the caller holds the lock for (a
// sync that publishes the grant before it reports it).
func (s *Store) ReserveIn(tx *jsonl.Tx, req Request) (Result, error) {
	var res Result
	if err := req.validate(); err != nil {
		return res, err
	}
	now := s.S.Now()
	active, err := s.Active(now)
	if err != nil {
		return res, err
	}
	if fresh := len(req.Patterns); len(active)+fresh > records.MaxActiveReservations {
		return res, &TooManyError{Active: len(active), Asked: fresh}
	}
	res.Conflicts = conflicts(req, active)
	ahead, err := s.queueIn(req, active, now) // the queue: waiters.go
	if err != nil {
		return res, err
	}
	res.Conflicts = append(res.Conflicts, ahead...)
	// A grant made over another droid's reservation: only an exclusive
	// request with --force gets one, and every holder hears of it.
	forced := req.Exclusive && len(res.Conflicts) > 0
	if forced && req.Steal != nil {
		if len(ahead) > 0 {
			// A steal takes from holders that died, not from droids in
			// line for the paths: those who queued first get them first.
			return res, &ConflictError{Conflicts: ahead, Now: now}
		}
		if res.Stolen, res.before, res.Notified, err = s.steal(tx, req, active, res.Conflicts); err != nil {
			return res, err
		}
		forced = false
	}
	if forced && req.Force {
		res.Notified, err = s.tellOverridden(tx, req, res.Conflicts)
	} else if req.Notify && len(res.Conflicts) > 0 {
		res.Notified, err = s.notify(tx, req, res.Conflicts)
	}
	if err != nil {
		return res, err
	}
	if forced && !req.Force {
		return res, &ConflictError{Conflicts: res.Conflicts, Notified: res.Notified, Now: now}
	}
	var lines []any
	for _, p := range req.Patterns {
		if own := heldBy(active, req.Droid, p); own != nil {
			line, err := renewed(own, now, req.TTL, append([]jsonl.Field{
				{Name: "exclusive", Value: req.Exclusive || own.Exclusive},
				{Name: "reason", Value: cmp.Or(req.Reason, own.Reason)},
				{Name: "issue_id", Value: cmp.Or(req.IssueID, own.IssueID)},
			}, authorFields(own, req.Droid)...))
			if err != nil {
				return res, err
			}
			lines = append(lines, line.raw)
			res.Granted = append(res.Granted, line.Reservation)
			continue
		}
		r := records.Reservation{
			ID: ids.NewReservation(), CreatedAt: now, UpdatedAt: &now, UpdatedBy: req.Droid, ExpiresAt: now.Add(req.TTL),
			Pattern: p, Droid: req.Droid, IssueID: req.IssueID, Status: records.ReservationActive,
			Exclusive: req.Exclusive, Reason: req.Reason, Forced: forced,
		}
		line, err := records.CheckedNew(records.ReservationsFile, r)
		if err != nil {
			return res, err
		}
		lines = append(lines, line)
		res.Granted = append(res.Granted, r)
	}
	return res, tx.Append(s.S.Log(records.ReservationsFile), lines...)
}

// TooManyError refuses a grant that would make more reservations active
// at once than records.MaxActiveReservations, or a wait that would put
// more places in the queue than that (Join).
type TooManyError struct {
	Active, Asked int
	// AskedMore says the request asked for more than Asked: it was
	// refused before all its patterns were counted (RefuseTooMany).
	AskedMore bool
	// InLine says Active counted places in the queue, not reservations:
	// the refusal is of a wait, and says so.
	InLine bool
}

// RefuseTooMany is the refusal of a request whose distinct patterns
// already pass records.MaxActiveReservations, found before the rest of
// them were normalised and counted: no grant could take them all.
func (s *Store) RefuseTooMany() error {
	active, err := s.Active(s.S.Now())
	if err != nil {
		return err
	}
	return &TooManyError{Active: len(active), Asked: records.MaxActiveReservations, AskedMore: true}
}

func (e *TooManyError) Error() string { return e.Text().String() }

// Text is the refusal's message, which names a call, for a front end to
// say in its own words.
func (e *TooManyError) Text() wording.Text {
	asked := fmt.Sprint(e.Asked)
	if e.AskedMore {
		asked = "more than " + asked
	}
	if e.InLine {
		return wording.Textf("nothing was queued: %d places are in line in this repository (every droid's), and %s more would pass "+
			"the %d git-queen keeps at once (each reserve reads them all); stop the waits that are not needed (%s lists them; "+
			"a place lapses soon after its wait stops), or wait for a broader pattern instead of many",
			e.Active, asked, records.MaxActiveReservations, wording.Run("reservations"))
	}
	return wording.Textf("nothing was reserved: %d reservations are active in this repository (every droid's), and %s more would pass "+
		"the %d git-queen holds at once (each check reads them all); release what is done (%s "+
		"lists them), or reserve a broader pattern instead of many", e.Active, asked, records.MaxActiveReservations, wording.Run("reservations", "all"))
}

// conflicts lists, for each requested pattern, the other droids' active
// reservations that overlap it where either side is exclusive.
func conflicts(req Request, active []Live) []Conflict {
	var out []Conflict
	for _, p := range req.Patterns {
		for _, r := range active {
			if witness, ok := contest(req.Droid, p, req.Exclusive, r.Reservation); ok {
				out = append(out, Conflict{Requested: p, Held: r.Reservation, Witness: witness})
			}
		}
	}
	return out
}

// contest is the one rule for when two reservations cannot both stand:
// different droids, at least one of them exclusive, and patterns that can
// match a common path (the witness). Reserve asks it of a request,
// Contentions of every active pair.
func contest(droid, pattern string, exclusive bool, other records.Reservation) (witness string, ok bool) {
	if droid == other.Droid || (!exclusive && !other.Exclusive) {
		return "", false
	}
	return overlap(pattern, other.Pattern)
}

// heldBy is droid's reservation (or place in the queue) for pattern in
// active (or waiting), or nil.
func heldBy(active []Live, droid, pattern string) *Live {
	for i := range active {
		if active[i].Droid == droid && active[i].Pattern == pattern {
			return &active[i]
		}
	}
	return nil
}

// Live is a reservation with the raw line of its latest version, so a new
// version keeps the fields other writers added, and the file it was read
// from.
type Live struct {
	records.Reservation
	raw    []byte
	file   string
	offset int64
}

// WrittenSince reports whether the reservation's latest version is in the
// log at path, at offset or after it: not yet published, when offset is
// how much of this clone's log a remote holds.
func (l Live) WrittenSince(path string, offset int64) bool {
	return l.file == path && l.offset >= offset
}

// MarshalJSON writes the reservation itself.
func (l Live) MarshalJSON() ([]byte, error) { return json.Marshal(l.Reservation) }

// renewed is a new version of r expiring ttl from now, with extra fields set.
func renewed(r *Live, now time.Time, ttl time.Duration, extra []jsonl.Field) (Live, error) {
	fields := append([]jsonl.Field{
		{Name: "expires_at", Value: now.Add(ttl)},
		{Name: "updated_at", Value: records.Successor(now, r.raw)},
	}, extra...)
	line, err := nextLine("reservation "+r.ID, r.raw, r.raw, fields...)
	if err != nil {
		return Live{}, err
	}
	var out Live
	if err := json.Unmarshal(line, &out.Reservation); err != nil {
		return Live{}, fmt.Errorf("reservation %s: %w", r.ID, err)
	}
	out.raw = line
	return out, nil
}

// Written is when this version was written (records.VersionTime): a sync
// takes a remote's newer version of it in its place.
func (l Live) Written() time.Time { return records.VersionTime(l.raw) }
