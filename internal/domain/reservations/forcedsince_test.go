package reservations

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// forcedFromAll is ForcedSince found in a decode of every reservation's
// current version: the reference the cached selection must agree with.
func forcedFromAll(t *testing.T, s *Store, since time.Time) []records.ForcedChange {
	t.Helper()
	all, _, err := s.List(Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []records.ForcedChange
	for _, l := range all {
		if c, ok := l.ForcedChange(); ok && !c.At.Before(since) {
			out = append(out, c)
		}
	}
	records.SortForced(out)
	return out
}

// ForcedSince reads a cached selection of the versions written since, and
// answers as a decode of every current version does, after each step of a
// history of forced releases, steals, grants over other droids',
// renewals, versions a sync brings out of time order and one dated a day
// ahead by a clock that lies; at a since that moves on, as doctor's does,
// and back.
func TestForcedSinceAnswersAsTheWholeHistoryDoes(t *testing.T) {
	f := newFixture(t)
	received := func(lines ...string) {
		raws := make([]any, len(lines))
		for i, l := range lines {
			raws[i] = json.RawMessage(l)
		}
		if err := f.res.S.Update(func(tx *jsonl.Tx) error { return tx.Append(f.res.S.ReceivedLog(records.ReservationsFile), raws...) }); err != nil {
			t.Fatal(err)
		}
	}
	change := func(c ChangeRequest) {
		if _, err := f.res.Change(c); err != nil {
			t.Fatal(err)
		}
	}
	forcedRelease := func(id, pattern string, created, at time.Time) string {
		l, err := jsonl.SetFields([]byte(line(id, "eve", pattern, records.ReservationReleased, true, created, at, created.Add(time.Hour))),
			jsonl.Field{Name: "released_at", Value: at}, jsonl.Field{Name: "updated_by", Value: "fay"}, jsonl.Field{Name: "forced", Value: true})
		if err != nil {
			t.Fatal(err)
		}
		return string(l)
	}
	old := t0.Add(-2 * time.Hour)
	steps := []struct {
		name string
		do   func()
	}{
		{"ann reserves four", func() {
			for _, p := range []string{"a/**", "b/**", "c/**", "d/**"} {
				f.reserve(t, "ann", p, true)
			}
		}},
		{"bob releases ann's a/** with --force", func() { change(ChangeRequest{By: "bob", Holder: "ann", Patterns: []string{"a/**"}, Force: true}) }},
		{"cat steals b/**", func() {
			if _, err := f.res.Reserve(Request{Patterns: []string{"b/**"}, Droid: "cat", Exclusive: true, Steal: func(string, time.Time) error { return nil }}); err != nil {
				t.Fatal(err)
			}
		}},
		{"dan reserves c/** over ann's with --force", func() {
			if _, err := f.res.Reserve(Request{Patterns: []string{"c/**"}, Droid: "dan", Exclusive: true, Force: true}); err != nil {
				t.Fatal(err)
			}
		}},
		{"dan renews it", func() { change(ChangeRequest{By: "dan", Patterns: []string{"c/**"}, Renew: true, TTL: time.Hour}) }},
		{"a sync brings fay's forced release of eve's e/**, dated before what the logs hold", func() {
			received(line("qr-01KB0000000000000000000005", "eve", "e/**", records.ReservationActive, true, old, old, old.Add(time.Hour)),
				forcedRelease("qr-01KB0000000000000000000005", "e/**", old, old.Add(time.Minute)))
		}},
		{"a sync brings fay's forced release of eve's f/**, dated a day ahead", func() {
			received(forcedRelease("qr-01KB0000000000000000000006", "f/**", old, f.clock.Now().Add(24*time.Hour)))
		}},
		{"then bob releases ann's d/** with --force", func() { change(ChangeRequest{By: "bob", Holder: "ann", Patterns: []string{"d/**"}, Force: true}) }},
		{"and a sync brings eve's e/** again, as it was before fay's release", func() {
			received(line("qr-01KB0000000000000000000005", "eve", "e/**", records.ReservationActive, true, old, old, old.Add(time.Hour)))
		}},
	}
	last := old
	for i, s := range steps {
		s.do()
		sinces := []time.Time{last, f.clock.Now().Add(-30 * time.Second), f.clock.Now(), f.clock.Now().Add(time.Hour)}
		if i%2 == 1 {
			sinces = append(sinces, old)
		}
		for _, since := range sinces {
			got, err := f.res.ForcedSince(since)
			if err != nil {
				t.Fatal(err)
			}
			if want := forcedFromAll(t, f.res, since); !reflect.DeepEqual(got, want) {
				t.Errorf("after %q, since %s:\n got %+v\nwant %+v", s.name, since.Format(time.RFC3339), got, want)
			}
		}
		last = f.clock.Now()
		f.clock.advance(time.Minute)
	}
	if all := forcedFromAll(t, f.res, old); len(all) < 5 {
		t.Errorf("the history holds %d forced changes, want at least 5: %+v", len(all), all)
	}
}
