package reservations

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Stealing is how a droid recovers paths from a holder that died: an
// exclusive request with Request.Steal set takes every conflicting
// reservation whose holder Steal allows (one silent for longer than the
// team's threshold) by releasing it, within the same lock as the grant:
// each released version is forced and stolen, names the thief in
// updated_by, and the holder gets a message. A holder Steal refuses
// refuses the whole request, and nothing is written. With a remote, the
// grant is published by the same compare-and-swap as any exclusive grant,
// so two droids stealing one path from one holder get one grant between
// them.

// StealCheck says whether holder's reservations may be stolen now: nil,
// or the refusal (a holder seen lately), which Reserve returns as it is.
// held is when the holder's reservations were last written: holding them
// is a sign of life then, even for a droid seen nowhere else (one another
// droid reserved for, by hand).
type StealCheck func(holder string, held time.Time) error

// steal releases the reservations found that overlap req, after Steal
// allowed each holder, and tells each holder. It returns the released
// versions, the versions they replaced and the messages sent.
func (s *Store) steal(tx *jsonl.Tx, req Request, active []Live, found []Conflict) ([]records.Reservation, [][]byte, []records.Message, error) {
	holders, _ := byHolder(found)
	for _, h := range holders {
		var held time.Time
		for _, c := range found {
			if t := writtenAt(c.Held); c.Held.Droid == h && t.After(held) {
				held = t
			}
		}
		if err := req.Steal(h, held); err != nil {
			return nil, nil, nil, err
		}
	}
	now := s.S.Now()
	var out []any
	var stolen []records.Reservation
	var before [][]byte
	for _, c := range found {
		if slices.ContainsFunc(stolen, func(r records.Reservation) bool { return r.ID == c.Held.ID }) {
			continue
		}
		i := slices.IndexFunc(active, func(l Live) bool { return l.ID == c.Held.ID })
		if i < 0 {
			return nil, nil, nil, fmt.Errorf("reservation %s: not among the active ones read", c.Held.ID)
		}
		l := active[i]
		line, err := released(&l, now, req.Droid, jsonl.Field{Name: "stolen", Value: true}) // forced: req.Droid is not the holder
		if err != nil {
			return nil, nil, nil, err
		}
		out = append(out, line)
		r := l.Reservation
		r.Status, r.ReleasedAt, r.UpdatedBy, r.Forced, r.Stolen = records.ReservationReleased, &now, req.Droid, true, true
		stolen = append(stolen, r)
		before = append(before, l.raw)
	}
	if err := tx.Append(s.S.Log(records.ReservationsFile), out...); err != nil {
		return nil, nil, nil, err
	}
	sent, err := s.tellHolders(tx, req, found, req.Droid+" stole your reservation (--steal)",
		req.Droid+" took paths you held, with --steal (you had not been seen for longer than the team allows):\n",
		"Your reservations there are released. If you are back, reserve again once "+req.Droid+" is done, or reply.")
	if err != nil {
		return nil, nil, nil, err
	}
	return stolen, before, sent, nil
}

// writtenAt is when r's version was written: its updated_at, else its
// creation.
func writtenAt(r records.Reservation) time.Time {
	if r.UpdatedAt != nil && r.UpdatedAt.After(r.CreatedAt) {
		return *r.UpdatedAt
	}
	return r.CreatedAt
}

// Stolen holders are judged again when the steal's publication has to
// wait: a compare-and-swap that lost fetches what reached the remote
// meanwhile, and a holder seen in it (back between the check and the
// push) is no longer silent. The steal then stops, and GiveBackIn gives
// each reservation it took back to its holder.

// Rejudge runs the steal check of req again for each droid res stole
// from, with no claim time of its own (what the holder wrote since shows
// in the roster the check reads): nil when every one is still silent.
func Rejudge(req Request, res Result) error {
	if req.Steal == nil {
		return nil
	}
	var judged []string
	for _, r := range res.Stolen {
		if slices.Contains(judged, r.Droid) {
			continue
		}
		judged = append(judged, r.Droid)
		if err := req.Steal(r.Droid, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// GiveBackIn undoes the steal of res by thief: each reservation it
// released whose latest version is still that release is active again as
// it was before (its expiry too), in a version by the thief marked
// forced, and each holder is told. A reservation its holder changed
// since (a renewal newer than the steal) is left as the holder left it.
func (s *Store) GiveBackIn(tx *jsonl.Tx, res Result, thief string) ([]records.Message, error) {
	if len(res.Stolen) == 0 {
		return nil, nil
	}
	now := s.S.Now()
	ids := make([]string, len(res.Stolen))
	for i, r := range res.Stolen {
		ids[i] = r.ID
	}
	all, err := s.latest(ids)
	if err != nil {
		return nil, err
	}
	var out []any
	var back []records.Reservation
	for i, r := range res.Stolen {
		j := slices.IndexFunc(all, func(l Live) bool { return l.ID == r.ID })
		if j < 0 || i >= len(res.before) {
			continue
		}
		cur := all[j]
		if !cur.Stolen || cur.UpdatedBy != thief || cur.Status != records.ReservationReleased {
			continue // its holder (or another) wrote a newer version
		}
		line, err := nextLine("reservation "+r.ID, res.before[i], cur.raw,
			jsonl.Field{Name: "updated_at", Value: records.Successor(now, cur.raw)},
			jsonl.Field{Name: "updated_by", Value: thief},
			jsonl.Field{Name: "forced", Value: true})
		if err != nil {
			return nil, err
		}
		out = append(out, line)
		back = append(back, cur.Reservation)
	}
	if len(out) == 0 {
		return nil, nil
	}
	if err := tx.Append(s.S.Log(records.ReservationsFile), out...); err != nil {
		return nil, err
	}
	var sent []records.Message
	var told []string
	for _, r := range back {
		if slices.Contains(told, r.Droid) {
			continue
		}
		told = append(told, r.Droid)
		var listed []string
		for _, x := range back {
			if x.Droid == r.Droid {
				listed = append(listed, x.Pattern+" ("+x.ID+")")
			}
		}
		body := "You were seen again before " + thief + "'s --steal was published, so it was undone and these are yours again:\n" +
			messages.Listing(listed, messages.MaxListing)
		msgs, err := messages.Notify(tx, s.S, thief, r.Droid, thief+" gave back your reservation (--steal undone)", body, r.IssueID)
		if err != nil {
			return nil, err
		}
		sent = append(sent, msgs...)
	}
	return sent, nil
}

// GiveBackUnpublished judges again, with check, each steal this clone has
// not published (a reservation among stolen, not in skip, whose latest
// version is a stolen release in this clone's log, at offset or after):
// one whose holder check now refuses (seen since, through a fetch) is
// given back (GiveBackIn), and the thief's grants among unpublished that
// overlap it are withdrawn and returned. So a steal killed before its
// push, or whose push failed, is never published against a holder back
// meanwhile. stolen and unpublished are ids the caller read past offset;
// the indexes place their current versions, so it costs them, not the
// history.
func (s *Store) GiveBackUnpublished(tx *jsonl.Tx, offset int64, stolen, unpublished, skip map[string]bool, check StealCheck) ([]Contest, error) {
	taken, err := s.latest(slices.Collect(maps.Keys(stolen)))
	if err != nil {
		return nil, err
	}
	own, now := s.S.Log(records.ReservationsFile).Path, s.S.Now()
	taken = slices.DeleteFunc(taken, func(l Live) bool {
		return !l.Stolen || skip[l.ID] || l.Status != records.ReservationReleased || !l.WrittenSince(own, offset) || check(l.Droid, time.Time{}) == nil
	})
	if len(taken) == 0 {
		return nil, nil
	}
	grants, err := s.latest(slices.Collect(maps.Keys(unpublished)))
	if err != nil {
		return nil, err
	}
	var contests []Contest
	var lost []Live
	var why []string
	for _, l := range taken {
		// The version before the steal, as GiveBackIn restores it.
		before, err := jsonl.SetFields(l.raw, jsonl.Field{Name: "status", Value: records.ReservationActive},
			jsonl.Field{Name: "released_at", Value: nil}, jsonl.Field{Name: "stolen", Value: false})
		if err != nil {
			return nil, err
		}
		if _, err := s.GiveBackIn(tx, Result{Stolen: []records.Reservation{l.Reservation}, before: [][]byte{before}}, l.UpdatedBy); err != nil {
			return nil, err
		}
		for _, g := range grants {
			witness, ok := overlap(g.Pattern, l.Pattern)
			if ok && g.Droid == l.UpdatedBy && g.ActiveAt(now) &&
				!slices.ContainsFunc(lost, func(x Live) bool { return x.ID == g.ID }) {
				contests = append(contests, Contest{Lost: g.Reservation, Winner: l.Reservation, Witness: witness, GivenBack: true})
				lost = append(lost, g)
				why = append(why, "not published: "+l.Droid+" was seen again before the --steal of "+l.Pattern+" ("+l.ID+") was, and has it back")
			}
		}
	}
	return contests, s.withdraw(tx, lost, why, now)
}
