package reservations

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/format/records"
)

// Two reservations conflict when some path could match both and at least
// one of them is exclusive; a droid never conflicts with itself.
func TestReserveOverlapAndExclusivity(t *testing.T) {
	type held struct {
		droid, pattern string
		exclusive      bool
	}
	tests := []struct {
		name      string
		held      held
		advance   time.Duration // between the hold and the request
		req       Request
		refused   bool   // a *ConflictError, nothing granted
		conflicts int    // conflicts reported (also for a granted shared request)
		witness   string // the path both patterns match
		forced    bool
	}{
		{name: "exclusive over exclusive", held: held{"bob", "src/api/**", true},
			req: Request{Patterns: []string{"src/api/x.go"}, Droid: "ann", Exclusive: true}, refused: true, conflicts: 1, witness: "src/api/x.go"},
		{name: "two globs with a common path", held: held{"bob", "web/*.ts", true},
			req: Request{Patterns: []string{"web/a*"}, Droid: "ann", Exclusive: true}, refused: true, conflicts: 1, witness: "web/a.ts"},
		{name: "disjoint directories", held: held{"bob", "src/api/**", true},
			req: Request{Patterns: []string{"docs/**"}, Droid: "ann", Exclusive: true}},
		{name: "globs that cannot meet", held: held{"bob", "web/*.ts", true},
			req: Request{Patterns: []string{"web/*.go"}, Droid: "ann", Exclusive: true}},
		{name: "the same droid", held: held{"ann", "src/**", true},
			req: Request{Patterns: []string{"src/a.go"}, Droid: "ann", Exclusive: true}},
		{name: "both shared", held: held{"bob", "src/**", false},
			req: Request{Patterns: []string{"src/a.go"}, Droid: "ann"}},
		{name: "exclusive over shared", held: held{"bob", "src/**", false},
			req: Request{Patterns: []string{"src/a.go"}, Droid: "ann", Exclusive: true}, refused: true, conflicts: 1, witness: "src/a.go"},
		{name: "shared over exclusive is granted, with the conflict", held: held{"bob", "src/**", true},
			req: Request{Patterns: []string{"src/a.go"}, Droid: "ann"}, conflicts: 1, witness: "src/a.go"},
		{name: "forced", held: held{"bob", "src/**", true},
			req: Request{Patterns: []string{"src/a.go"}, Droid: "ann", Exclusive: true, Force: true}, conflicts: 1, witness: "src/a.go", forced: true},
		{name: "the held one expired", held: held{"bob", "src/**", true}, advance: DefaultTTL,
			req: Request{Patterns: []string{"src/a.go"}, Droid: "ann", Exclusive: true}},
		{name: "one of several patterns conflicts: nothing is granted", held: held{"bob", "src/**", true},
			req: Request{Patterns: []string{"docs/**", "src/a.go"}, Droid: "ann", Exclusive: true}, refused: true, conflicts: 1, witness: "src/a.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.reserve(t, tt.held.droid, tt.held.pattern, tt.held.exclusive)
			before := f.activePatterns(t)
			f.clock.advance(tt.advance)
			res, err := f.res.Reserve(tt.req)
			var ce *ConflictError
			if tt.refused != errors.As(err, &ce) {
				t.Fatalf("Reserve: %v, refused want %v", err, tt.refused)
			}
			if !tt.refused && err != nil {
				t.Fatal(err)
			}
			if len(res.Conflicts) != tt.conflicts {
				t.Fatalf("conflicts %+v, want %d", res.Conflicts, tt.conflicts)
			}
			if tt.conflicts > 0 {
				c := res.Conflicts[0]
				if c.Witness != tt.witness || c.Held.Droid != tt.held.droid || c.Held.Pattern != tt.held.pattern {
					t.Errorf("conflict %+v, want %s's %s with witness %s", c, tt.held.droid, tt.held.pattern, tt.witness)
				}
			}
			if tt.refused {
				if len(res.Granted) != 0 {
					t.Errorf("a refused request granted %+v", res.Granted)
				}
				if !strings.Contains(err.Error(), "e.g. "+tt.witness+" matches both") || !strings.Contains(err.Error(), "held by "+tt.held.droid) {
					t.Errorf("the refusal does not name the holder and the witness:\n%v", err)
				}
				if tt.advance == 0 && !slices.Equal(f.activePatterns(t), before) {
					t.Errorf("a refusal changed the active reservations: %v, was %v", f.activePatterns(t), before)
				}
				return
			}
			if len(res.Granted) != len(tt.req.Patterns) {
				t.Fatalf("granted %+v for %v", res.Granted, tt.req.Patterns)
			}
			for _, g := range res.Granted {
				if g.Forced != tt.forced || g.Droid != tt.req.Droid || !g.ActiveAt(f.clock.Now()) {
					t.Errorf("grant %+v: forced want %v, active now", g, tt.forced)
				}
			}
		})
	}
}

// Every bad request is refused before anything is written, with an error
// the command line reports as a usage error.
func TestReserveRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name    string
		req     Request
		pattern error // the globs rule broken, or nil for a records.InvalidError
		want    string
	}{
		{name: "ttl over the 7-day cap", req: Request{Patterns: []string{"a"}, Droid: "ann", TTL: MaxTTL + time.Second}, want: "out of range"},
		{name: "negative ttl", req: Request{Patterns: []string{"a"}, Droid: "ann", TTL: -time.Minute}, want: "out of range"},
		{name: "no pattern", req: Request{Droid: "ann"}, want: "no pattern"},
		{name: "no droid", req: Request{Patterns: []string{"a"}}, want: "droid name is empty"},
		{name: "droid with a space", req: Request{Patterns: []string{"a"}, Droid: "a b"}, want: "space"},
		{name: "bad issue id", req: Request{Patterns: []string{"a"}, Droid: "ann", IssueID: "qb 1"}, want: "issue id"},
		{name: "empty pattern", req: Request{Patterns: []string{""}, Droid: "ann"}, pattern: globs.ErrEmpty},
		{name: "dot-dot segment", req: Request{Patterns: []string{"src/../etc/passwd"}, Droid: "ann"}, pattern: globs.ErrDotDot},
		{name: "leading dot-dot", req: Request{Patterns: []string{"../other/**"}, Droid: "ann"}, pattern: globs.ErrDotDot},
		{name: "absolute", req: Request{Patterns: []string{"/etc/**"}, Droid: "ann"}, pattern: globs.ErrAbsolute},
		{name: "invalid glob", req: Request{Patterns: []string{"src/[a"}, Droid: "ann"}, pattern: globs.ErrSyntax},
		{name: "control character", req: Request{Patterns: []string{"src/\x1b[31m"}, Droid: "ann"}, want: "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.res.Reserve(tt.req)
			if err == nil {
				t.Fatal("granted")
			}
			if tt.pattern != nil {
				var pe *globs.PatternError
				if !errors.As(err, &pe) || !errors.Is(err, tt.pattern) {
					t.Fatalf("%v (%T), want a pattern error for %v", err, err, tt.pattern)
				}
			} else {
				var ie *records.InvalidError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("%v (%T), want an invalid-input error saying %q", err, err, tt.want)
				}
			}
			if got := f.activePatterns(t); len(got) != 0 {
				t.Errorf("a refused request left %v", got)
			}
		})
	}
}

// Asking again for a pattern one holds renews it: one reservation, the
// same id, a later expiry, and the options of the new request.
func TestReserveAgainRenewsTheSameReservation(t *testing.T) {
	f := newFixture(t)
	first := f.reserve(t, "ann", "src/**", false)
	f.clock.advance(time.Hour)
	res, err := f.res.Reserve(Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true, Reason: "refactor", TTL: 3 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	again := res.Granted[0]
	if again.ID != first.ID {
		t.Errorf("a second reservation %s beside %s", again.ID, first.ID)
	}
	if want := t0.Add(4 * time.Hour); !again.ExpiresAt.Equal(want) {
		t.Errorf("expires %s, want %s", again.ExpiresAt, want)
	}
	if !again.Exclusive || again.Reason != "refactor" {
		t.Errorf("the renewal did not take the new options: %+v", again)
	}
	list, _, err := f.res.List(Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || !list[0].Exclusive {
		t.Errorf("List after a renewal: %+v", list)
	}
}

// A reservation ends at its expiry, and never more than 7 days after its
// latest version was written, whatever expires_at says.
func TestExpiryAndTheSevenDayCap(t *testing.T) {
	tests := []struct {
		name    string
		expires time.Duration // after t0, when it was written
		at      time.Duration // when it is looked at
		active  bool
	}{
		{"before its expiry", 2 * time.Hour, 2*time.Hour - time.Millisecond, true},
		{"at its expiry", 2 * time.Hour, 2 * time.Hour, false},
		{"a far expiry, six days on", 10 * 365 * 24 * time.Hour, 6 * 24 * time.Hour, true},
		{"a far expiry, just before the cap", 10 * 365 * 24 * time.Hour, MaxTTL - time.Millisecond, true},
		{"a far expiry, at the cap", 10 * 365 * 24 * time.Hour, MaxTTL, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			writeLog(t, f.logPath(), joinLines(line("qr-01", "bob", "src/**", "active", true, t0, t0, t0.Add(tt.expires))))
			f.clock.advance(tt.at)
			if got := len(f.activePatterns(t)) == 1; got != tt.active {
				t.Errorf("Active: %v, want %v", got, tt.active)
			}
			holds, err := f.res.Check("ann", []string{"src/a.go"})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(holds) == 1; got != tt.active {
				t.Errorf("Check holds %+v, want held %v", holds, tt.active)
			}
			if _, err := f.res.Reserve(Request{Patterns: []string{"src/a.go"}, Droid: "ann", Exclusive: true}); (err != nil) != tt.active {
				t.Errorf("an overlapping request: %v, want refused %v", err, tt.active)
			}
		})
	}
}

// A repository holds at most records.MaxActiveReservations at once: a
// reserve past it is refused with the count and what to do, and nothing
// is granted; released ones make room again.
func TestReservationsActiveAtOnceAreBounded(t *testing.T) {
	f := newFixture(t)
	many := boundFull()
	if _, err := f.res.Reserve(Request{Patterns: many, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	_, err := f.res.Reserve(Request{Patterns: []string{"one/**"}, Droid: "bob", Exclusive: true})
	var tooMany *TooManyError
	if !errors.As(err, &tooMany) || tooMany.Active != records.MaxActiveReservations || !strings.Contains(err.Error(), "release what is done") {
		t.Fatalf("the reserve past the bound: %v", err)
	}
	if _, err := f.res.Release("ann", []string{"d0/**"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.res.Reserve(Request{Patterns: []string{"one/**"}, Droid: "bob", Exclusive: true}); err != nil {
		t.Fatalf("after a release: %v", err)
	}
}
