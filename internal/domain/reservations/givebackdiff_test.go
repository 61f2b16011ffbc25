package reservations

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// givenBackFromAll is what GiveBackUnpublished gave back as it was, found
// in a decode of every reservation's current version: "grant for stolen"
// of each grant it withdrew, by id.
func givenBackFromAll(t *testing.T, s *Store, offset int64, unpublished, skip map[string]bool, check StealCheck) []string {
	t.Helper()
	all, _, err := s.List(Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	own, now := s.S.Log(records.ReservationsFile).Path, s.S.Now()
	var out []string
	for _, l := range all {
		if !l.Stolen || skip[l.ID] || l.Status != records.ReservationReleased || !l.WrittenSince(own, offset) || check(l.Droid, time.Time{}) == nil {
			continue
		}
		for _, g := range all {
			if _, ok := overlap(g.Pattern, l.Pattern); ok && unpublished[g.ID] && g.Droid == l.UpdatedBy && g.ActiveAt(now) && !slices.Contains(out, g.ID+" for "+l.ID) {
				out = append(out, g.ID+" for "+l.ID)
			}
		}
	}
	return out
}

// GiveBackUnpublished finds the steals to give back through the ids it
// is given and the indexes, and withdraws the grants a decode of every
// reservation's current version found: not for a steal already
// published, nor one whose holder is still silent, nor one the sync is
// judging, nor a grant made with --force; and it gives back a steal whose
// thief let go of the grant.
func TestGiveBackUnpublishedWithdrawsWhatTheWholeHistoryDid(t *testing.T) {
	f := newFixture(t)
	steal := func(string, time.Time) error { return nil }
	for _, p := range []string{"a/**", "b/**", "c/**", "d/**", "f/**"} {
		f.reserve(t, "ann", p, true)
	}
	dans := f.reserve(t, "dan", "e/**", true) // silent still
	reserve := func(req Request) Result {
		t.Helper()
		f.clock.advance(time.Second)
		res, err := f.res.Reserve(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	reserve(Request{Patterns: []string{"f/**"}, Droid: "cat", Exclusive: true, Steal: steal}) // published with the rest
	info, err := os.Stat(f.logPath())
	if err != nil {
		t.Fatal(err)
	}
	unpublished := map[string]bool{}
	for _, p := range []string{"a/**", "e/**", "b/**", "c/**"} {
		res := reserve(Request{Patterns: []string{p}, Droid: "cat", Exclusive: true, Steal: steal})
		unpublished[res.Granted[0].ID] = true
	}
	if _, err := f.res.Release("cat", []string{"b/**"}, false); err != nil { // cat let go: ann's is given back all the same
		t.Fatal(err)
	}
	skip := map[string]bool{}
	all, _, err := f.res.List(Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	every := map[string]bool{}
	for _, l := range all {
		every[l.ID] = true // what the caller reads past the offset, and more
		if l.Pattern == "c/**" && l.Droid == "ann" {
			skip[l.ID] = true // the sync is judging it
		}
	}
	res := reserve(Request{Patterns: []string{"d/**"}, Droid: "bob", Exclusive: true, Force: true}) // forced, not stolen
	unpublished[res.Granted[0].ID] = true
	seen := func(holder string, _ time.Time) error {
		if holder == dans.Droid {
			return nil
		}
		return errors.New(holder + " was seen")
	}
	want := givenBackFromAll(t, f.res, info.Size(), unpublished, skip, seen)
	if len(want) != 1 {
		t.Fatalf("the reference withdraws %v, want cat's a/**", want)
	}
	var back []Contest
	if err := f.res.S.Update(func(tx *jsonl.Tx) error {
		back, err = f.res.GiveBackUnpublished(tx, info.Size(), every, unpublished, skip, seen)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range back {
		got = append(got, c.Lost.ID+" for "+c.Winner.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("withdrew %v, want %v", got, want)
	}
	active := slices.Sorted(slices.Values(f.activePatterns(t)))
	if want := []string{"ann:a/**", "ann:b/**", "ann:d/**", "bob:d/**", "cat:c/**", "cat:e/**", "cat:f/**"}; !slices.Equal(active, want) {
		t.Errorf("active after: %v, want %v", active, want)
	}
	f.checkLogs(t)
}
