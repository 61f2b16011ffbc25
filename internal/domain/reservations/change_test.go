package reservations

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Release ends the droid's reservations that a given pattern equals or
// covers, and nothing else.
func TestRelease(t *testing.T) {
	held := []struct{ droid, pattern string }{
		{"ann", "src/api/*.go"}, {"ann", "docs/**"}, {"ann", "web/a.ts"}, {"bob", "lib/**"},
	}
	tests := []struct {
		name     string
		droid    string
		patterns []string
		all      bool
		released []string // patterns released
		nothing  bool     // a *NothingToReleaseError
	}{
		{name: "the exact pattern", droid: "ann", patterns: []string{"docs/**"}, released: []string{"docs/**"}},
		{name: "a covering pattern", droid: "ann", patterns: []string{"src/**"}, released: []string{"src/api/*.go"}},
		{name: "a directory", droid: "ann", patterns: []string{"src/"}, released: []string{"src/api/*.go"}},
		{name: "an overlapping pattern does not cover", droid: "ann", patterns: []string{"src/api/x.go"}, nothing: true},
		{name: "two patterns", droid: "ann", patterns: []string{"docs/**", "web/**"}, released: []string{"docs/**", "web/a.ts"}},
		// A stored literal pattern is the file alone (reserve stores a
		// directory, or a path not there yet, as DIR/**).
		{name: "a single star covers a literal", droid: "ann", patterns: []string{"web/*"}, released: []string{"web/a.ts"}},
		{name: "a single star does not cover a subtree", droid: "ann", patterns: []string{"doc*"}, nothing: true},
		{name: "all", droid: "ann", all: true, released: []string{"docs/**", "src/api/*.go", "web/a.ts"}},
		{name: "another droid's reservation stays", droid: "cat", all: true, nothing: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for _, h := range held {
				f.reserve(t, h.droid, h.pattern, true)
			}
			f.clock.advance(time.Minute)
			got, err := f.res.Release(tt.droid, tt.patterns, tt.all)
			var nothing *NothingToReleaseError
			if errors.As(err, &nothing) != tt.nothing {
				t.Fatalf("Release: %v, want nothing released %v", err, tt.nothing)
			}
			if !tt.nothing && err != nil {
				t.Fatal(err)
			}
			var released []string
			for _, r := range got {
				released = append(released, r.Pattern)
				if r.Status != records.ReservationReleased || r.ReleasedAt == nil || !r.ReleasedAt.Equal(f.clock.Now()) {
					t.Errorf("released version %+v", r)
				}
			}
			slices.Sort(released)
			if !slices.Equal(released, tt.released) {
				t.Errorf("released %v, want %v", released, tt.released)
			}
			for _, h := range held {
				active := slices.Contains(f.activePatterns(t), h.droid+":"+h.pattern)
				if want := !(h.droid == tt.droid && slices.Contains(tt.released, h.pattern)); active != want {
					t.Errorf("%s's %s active %v, want %v", h.droid, h.pattern, active, want)
				}
			}
		})
	}
}

func TestNothingToReleaseNamesWhatTheDroidHolds(t *testing.T) {
	f := newFixture(t)
	if _, err := f.res.Release("ann", nil, true); err == nil || !strings.Contains(err.Error(), "ann holds no active reservations") {
		t.Errorf("a droid with nothing: %v", err)
	}
	f.reserve(t, "ann", "docs/**", true)
	_, err := f.res.Release("ann", []string{"src/**"}, false)
	if err == nil || !strings.Contains(err.Error(), "ann holds docs/**") {
		t.Errorf("a pattern that covers nothing: %v", err)
	}
	if _, err := f.res.Release("ann", nil, false); err == nil || !strings.Contains(err.Error(), "all=true") {
		t.Errorf("no pattern and no --all: %v", err)
	}
	if _, err := f.res.Release("ann", []string{"../x"}, false); err == nil {
		t.Error("a bad pattern was accepted")
	}
}

// A release of thousands of patterns that covers nothing is refused in a
// few lines: the message names the first patterns of each list and counts
// the rest (it named every one, megabytes for an agent's context).
func TestNothingToReleaseIsBounded(t *testing.T) {
	asked := make([]string, 5000)
	held := make([]string, 4000)
	for i := range asked {
		asked[i] = fmt.Sprintf("asked/%d", i)
	}
	for i := range held {
		held[i] = fmt.Sprintf("held/%d", i)
	}
	msg := (&NothingToReleaseError{Verb: "release", Droid: "ann", Patterns: asked, Held: held}).Error()
	for _, want := range []string{"asked/0 or asked/1", "(and 4990 more)", "held/0, held/1", "(and 3990 more)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal (%d bytes) does not say %q: %.300q", len(msg), want, msg)
		}
	}
	if strings.Contains(msg, "asked/10 ") || strings.Contains(msg, "held/10,") || len(msg) > 400 {
		t.Errorf("the refusal names more than the first patterns (%d bytes): %.300q", len(msg), msg)
	}
}

// Renew moves the expiry to ttl from now, within the cap; an expired
// reservation is gone and cannot be renewed.
func TestRenew(t *testing.T) {
	tests := []struct {
		name    string
		after   time.Duration
		ttl     time.Duration
		expires time.Duration // after t0; 0: the renewal fails
		invalid bool
	}{
		{name: "default ttl", after: time.Hour, expires: time.Hour + DefaultTTL},
		{name: "longer", after: time.Hour, ttl: 5 * time.Hour, expires: 6 * time.Hour},
		{name: "the cap itself", after: time.Hour, ttl: MaxTTL, expires: time.Hour + MaxTTL},
		{name: "over the cap", after: time.Hour, ttl: MaxTTL + time.Millisecond, invalid: true},
		{name: "negative", after: time.Hour, ttl: -time.Hour, invalid: true},
		{name: "already expired", after: DefaultTTL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			first := f.reserve(t, "ann", "src/**", true)
			f.clock.advance(tt.after)
			got, err := f.res.Renew("ann", []string{"src/**"}, false, tt.ttl)
			switch {
			case tt.invalid:
				var ie *records.InvalidError
				if !errors.As(err, &ie) {
					t.Fatalf("Renew: %v, want an invalid-input error", err)
				}
				return
			case tt.expires == 0:
				var nothing *NothingToReleaseError
				if !errors.As(err, &nothing) || nothing.Verb != "renew" {
					t.Fatalf("Renew of an expired reservation: %v", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].ID != first.ID || !got[0].ExpiresAt.Equal(t0.Add(tt.expires)) {
				t.Fatalf("renewed %+v, want %s expiring at %s", got, first.ID, t0.Add(tt.expires))
			}
			f.clock.advance(tt.expires - tt.after - time.Millisecond)
			if len(f.activePatterns(t)) != 1 {
				t.Error("not active just before its new expiry")
			}
			f.clock.advance(time.Millisecond)
			if len(f.activePatterns(t)) != 0 {
				t.Error("still active at its new expiry")
			}
		})
	}
}

// The current version of a reservation is decided by its timestamps, not
// by which line comes last: a release written later but placed earlier (a
// rebase, a cherry-pick, another clone's merge) still wins.
func TestTheVersionRuleNotTheLineOrder(t *testing.T) {
	created, later := t0.Add(-time.Hour), t0.Add(-time.Minute)
	active := line("qr-01", "bob", "src/**", "active", true, created, created, t0.Add(time.Hour))
	released := line("qr-01", "bob", "src/**", "released", true, created, later, t0.Add(time.Hour))
	renewedLater := line("qr-01", "bob", "src/**", "active", true, created, later, t0.Add(time.Hour))
	releasedEarlier := line("qr-01", "bob", "src/**", "released", true, created, created.Add(time.Second), t0.Add(time.Hour))
	tests := []struct {
		name   string
		lines  []string
		active bool
	}{
		{"the release last", []string{active, released}, false},
		{"the release first", []string{released, active}, false},
		{"a renewal after a release, placed first", []string{renewedLater, releasedEarlier}, true},
		{"a renewal after a release, placed last", []string{releasedEarlier, renewedLater}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			writeLog(t, f.logPath(), joinLines(tt.lines...))
			if got := len(f.activePatterns(t)) == 1; got != tt.active {
				t.Errorf("active %v, want %v", got, tt.active)
			}
			all, _, err := f.res.List(Filter{All: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 1 {
				t.Fatalf("List --all shows %d versions of one reservation", len(all))
			}
		})
	}
}

// The live store unions this clone's log with what other clones wrote:
// a newer release there ends a reservation that is active here, and an
// active reservation there holds paths here.
func TestReceivedRecordsCount(t *testing.T) {
	f := newFixture(t)
	created := t0.Add(-time.Hour)
	writeLog(t, f.logPath(), joinLines(line("qr-01", "bob", "src/**", "active", true, created, created, t0.Add(time.Hour))))
	writeLog(t, store.ReceivedPath(f.res.S.WS, records.ReservationsFile), joinLines(
		line("qr-01", "bob", "src/**", "released", true, created, t0.Add(-time.Minute), t0.Add(time.Hour)),
		line("qr-02", "cat", "web/**", "active", true, created, created, t0.Add(time.Hour))))
	if got := f.activePatterns(t); !slices.Equal(got, []string{"cat:web/**"}) {
		t.Errorf("active across sources: %v", got)
	}
	holds, err := f.res.Check("ann", []string{"src/a.go", "web/a.ts"})
	if err != nil {
		t.Fatal(err)
	}
	if len(holds) != 1 || holds[0].Path != "web/a.ts" || holds[0].Reservation.Droid != "cat" {
		t.Errorf("holds %+v", holds)
	}
}

// Bad lines never hide the good ones, and are reported with their line
// numbers rather than dropped in silence.
func TestBadLinesAreReportedNotFatal(t *testing.T) {
	good := line("qr-01", "bob", "src/**", "active", true, t0, t0, t0.Add(time.Hour))
	good2 := line("qr-02", "cat", "web/**", "active", true, t0, t0, t0.Add(time.Hour))
	tests := []struct {
		name     string
		content  string
		problems []int // line numbers reported
	}{
		{"clean", joinLines(good, good2), nil},
		{"malformed line", joinLines(good, `{"id":"qr-03",`, good2), []int{2}},
		{"not an object", joinLines(good, `[1,2]`, good2), []int{2}},
		{"a record that does not decode", joinLines(good, strings.Replace(strings.Replace(good, `"pattern":"src/**"`, `"pattern":7`, 1), "qr-01", "qr-03", 1), good2), []int{2}},
		{"CRLF line ends", good + "\r\n" + good2 + "\r\n", nil},
		{"a byte order mark", "\ufeff" + joinLines(good, good2), nil},
		{"no final newline", good + "\n" + good2, nil},
		{"conflict markers", joinLines("<<<<<<< HEAD", good, "=======", good2, ">>>>>>> theirs"), []int{1, 3, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			writeLog(t, f.logPath(), tt.content)
			list, problems, err := f.res.List(Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var droids []string
			for _, l := range list {
				droids = append(droids, l.Droid)
			}
			if !slices.Equal(droids, []string{"bob", "cat"}) {
				t.Errorf("listed %v, want bob and cat", droids)
			}
			if got := lineNumbers(problems); !slices.Equal(got, tt.problems) {
				t.Errorf("problems on lines %v, want %v: %+v", got, tt.problems, problems)
			}
			holds, err := f.res.Check("ann", []string{"src/a", "web/b"})
			if err != nil || len(holds) != 2 {
				t.Errorf("Check beside bad lines: %+v, %v", holds, err)
			}
		})
	}
}

func lineNumbers(problems []jsonl.Problem) []int {
	var out []int
	for _, p := range problems {
		out = append(out, p.Line)
	}
	slices.Sort(out)
	return out
}

// Release ends the droid's active reservations whose pattern equals one of
// patterns or is covered by one (every path it matches, the given pattern
// matches too), or all of them.
func (s *Store) Release(droid string, patterns []string, all bool) ([]records.Reservation, error) {
	res, err := s.Change(ChangeRequest{By: droid, Patterns: patterns, All: all})
	return res.Changed, err
}

// Renew extends the droid's matching active reservations to ttl from now.
func (s *Store) Renew(droid string, patterns []string, all bool, ttl time.Duration) ([]records.Reservation, error) {
	res, err := s.Change(ChangeRequest{By: droid, Patterns: patterns, All: all, Renew: true, TTL: ttl})
	return res.Changed, err
}
