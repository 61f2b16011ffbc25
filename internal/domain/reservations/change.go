package reservations

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// ChangeRequest asks for a release or a renewal of reservations: By's
// own, or, with Force, another droid's (Holder), who is then told.
type ChangeRequest struct {
	// By is the droid asking; Holder the droid whose reservations change
	// ("" for By's own).
	By, Holder string
	// Patterns select the reservations each equals or covers; All selects
	// every one Holder holds.
	Patterns []string
	// Through, when given, has one entry a pattern: Patterns[i] with its
	// leading directories resolved through a symlink in the worktree ("" when
	// none leads elsewhere). It selects in Patterns[i]'s place when
	// Patterns[i] as given covers none of the holder's active
	// reservations, so a pattern written where reserve stores it (lnk/a.go
	// is src/a.go) finds it, and one stored as typed still matches as typed.
	Through []string
	// Normalized vouches for the Patterns and Through its caller
	// normalised (as Request's does): those are taken as they are, the
	// others normalised.
	Normalized *Normalized
	All        bool
	// Renew extends them to TTL from now (DefaultTTL when zero) instead
	// of releasing them.
	Renew bool
	TTL   time.Duration
	// Force lets By change Holder's reservations: each new version says
	// forced and names By, and Holder gets a message saying what By did
	// and why (Reason).
	Force  bool
	Reason string
}

func (c *ChangeRequest) verb() string {
	if c.Renew {
		return "renew"
	}
	return "release"
}

// ChangeResult is what a change wrote.
type ChangeResult struct {
	Changed []records.Reservation `json:"changed"`
	// Notified is the message that told the holder of a forced change.
	Notified []records.Message `json:"notified,omitempty"`
	// Selected are the patterns that selected, one a pattern asked for:
	// Patterns[i], or Through[i] in its place.
	Selected []string `json:"-"`
}

// NothingToReleaseError says that no active reservation of the droid
// matched, and which ones it does hold.
type NothingToReleaseError struct {
	Verb     string // "release" or "renew"
	Droid    string
	Patterns []string
	Held     []string
}

func (e *NothingToReleaseError) Error() string {
	if len(e.Held) == 0 {
		return fmt.Sprintf("%s holds no active reservations; nothing to %s", e.Droid, e.Verb)
	}
	return fmt.Sprintf("nothing to %s: none of %s's active reservations is %s or covered by it; %s holds %s",
		e.Verb, e.Droid, firstNamed(e.Patterns, " or "), e.Droid, firstNamed(e.Held, ", "))
}

// maxNamed is how many patterns a refusal names of a list: a request of
// thousands, or a droid holding thousands, gets a line, not megabytes.
const maxNamed = 10

// firstNamed joins the first maxNamed patterns with sep and counts the rest.
func firstNamed(patterns []string, sep string) string {
	if len(patterns) <= maxNamed {
		return strings.Join(patterns, sep)
	}
	return strings.Join(patterns[:maxNamed], sep) + fmt.Sprintf(" (and %d more)", len(patterns)-maxNamed)
}

// Change releases or renews the holder's matching active reservations,
// under the lock: a new version of each, written by By.
func (s *Store) Change(c ChangeRequest) (ChangeResult, error) {
	var res ChangeResult
	if err := c.validate(); err != nil {
		return res, err
	}
	err := s.S.Update(func(tx *jsonl.Tx) error {
		now := s.S.Now()
		active, err := s.Active(now)
		if err != nil {
			return err
		}
		var mine []*Live
		var held []string
		for i := range active {
			if active[i].Droid == c.Holder {
				mine = append(mine, &active[i])
				held = append(held, active[i].Pattern)
			}
		}
		res.Selected = c.selecting(mine)
		selected := newCoverIndex(res.Selected)
		var lines []any
		for _, l := range mine {
			if !c.All && !selected.covers(l.Pattern) {
				continue
			}
			line, err := c.next(l, now)
			if err != nil {
				return err
			}
			var r records.Reservation
			if err := json.Unmarshal(line, &r); err != nil {
				return err
			}
			lines = append(lines, line)
			res.Changed = append(res.Changed, r)
		}
		if len(lines) == 0 {
			return &NothingToReleaseError{Verb: c.verb(), Droid: c.Holder, Patterns: res.Selected, Held: held}
		}
		if c.Holder != c.By {
			if res.Notified, err = s.tellHolder(tx, c, res.Changed); err != nil {
				return err
			}
		}
		return tx.Append(s.S.Log(records.ReservationsFile), lines...)
	})
	if err != nil {
		return ChangeResult{}, err
	}
	return res, nil
}

func (c *ChangeRequest) validate() error {
	if err := records.ValidateDroid(c.By); err != nil {
		return err
	}
	c.Holder = cmp.Or(c.Holder, c.By)
	if err := records.ValidateDroid(c.Holder); err != nil {
		return records.Invalidf("holder: %w", err)
	}
	if c.Holder != c.By && !c.Force {
		return &records.ForceNeededError{Verb: c.verb(), What: "these reservations", Kind: "reservations", Many: true, Holder: c.Holder, By: c.By}
	}
	if err := records.ValidateReason(c.Reason); err != nil {
		return err
	}
	if !c.All && len(c.Patterns) == 0 {
		return records.Invalidf("name the patterns, or use %s", wording.Switch("all"))
	}
	if c.Renew {
		c.TTL = cmp.Or(c.TTL, DefaultTTL)
		if c.TTL < 0 || c.TTL > MaxTTL {
			return records.Invalidf("ttl %s is out of range: reservations last from a second to %s", c.TTL, MaxTTL)
		}
	}
	if len(c.Through) != 0 && len(c.Through) != len(c.Patterns) {
		return records.Invalidf("%d patterns resolved through links for %d patterns", len(c.Through), len(c.Patterns))
	}
	var err error
	if c.Patterns, err = c.Normalized.all(c.Patterns); err != nil {
		return err
	}
	c.Through, err = c.Normalized.all(c.Through)
	return err
}

// all is patterns normalised, "" and those v vouches for left as they
// are.
func (v *Normalized) all(patterns []string) ([]string, error) {
	out := slices.Clone(patterns)
	for i, p := range out {
		if p == "" || v.has(p) {
			continue
		}
		n, err := Normalize(p, nil)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// selecting is the pattern that selects for each pattern asked for, among
// the holder's active reservations mine: the pattern as given when it
// covers one of them or has no resolution through a link, else that
// resolution.
func (c *ChangeRequest) selecting(mine []*Live) []string {
	out := slices.Clone(c.Patterns)
	var held *coverIndex // made when a pattern has a resolution
	for i, p := range out {
		if i >= len(c.Through) || c.Through[i] == "" || c.Through[i] == p {
			continue
		}
		if held == nil {
			texts := make([]string, len(mine))
			for j, l := range mine {
				texts[j] = l.Pattern
			}
			held = newCoverIndex(texts)
		}
		if !held.coveredBy(p) {
			out[i] = c.Through[i]
		}
	}
	return out
}

// next is the new version of l the change writes.
func (c *ChangeRequest) next(l *Live, now time.Time) ([]byte, error) {
	if c.Renew {
		r, err := renewed(l, now, c.TTL, authorFields(l, c.By))
		return r.raw, err
	}
	return released(l, now, c.By)
}

// released is the version that releases l at now, written by by (see
// authorFields), with more fields set.
func released(l *Live, now time.Time, by string, more ...jsonl.Field) ([]byte, error) {
	fields := append([]jsonl.Field{
		{Name: "status", Value: records.ReservationReleased},
		{Name: "released_at", Value: now},
		{Name: "updated_at", Value: records.Successor(now, l.raw)},
	}, more...)
	return nextLine("reservation "+l.ID, l.raw, l.raw, append(fields, authorFields(l, by)...)...)
}

// nextLine is a new version of the reservation whose current line is cur:
// base (cur, or a version before it) with fields set, held to the rules a
// version after cur obeys (records.CheckedNext). label names the
// reservation in an error of setting the fields.
func nextLine(label string, base, cur []byte, fields ...jsonl.Field) ([]byte, error) {
	line, err := jsonl.SetFields(base, fields...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return records.CheckedNext(records.ReservationsFile, cur, line)
}

// authorFields are the fields that say who wrote a new version of l:
// updated_by, and forced when by is not the holder. The holder's own
// version after another droid's forced change is no longer forced; one
// after its own forced grant stays forced, so that a sync still never
// withdraws the grant.
func authorFields(l *Live, by string) []jsonl.Field {
	fields := []jsonl.Field{{Name: "updated_by", Value: by}}
	switch {
	case by != l.Droid:
		fields = append(fields, jsonl.Field{Name: "forced", Value: true})
	case l.ForcedBy() != "":
		fields = append(fields, jsonl.Field{Name: "forced", Value: false})
	}
	return fields
}
