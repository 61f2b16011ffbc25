//go:build unix

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A holder whose clock runs ahead is seen when its records arrive. In a
// team of three with one clock ahead, droid-0 reserves and claims; droid-1
// cannot steal either a second later, and may once droid-0 has been
// silent for the threshold (an hour): from the time its records claim
// when that came within the tolerated skew, else from when they arrived.
func TestStealFromFastClockHolder(t *testing.T) {
	for _, x := range []struct {
		name      string
		clock     time.Time     // the holder's
		stillSeen time.Duration // on the others' clock
	}{
		{"ten minutes fast", stealT0.Add(10 * time.Minute), 70 * time.Minute},
		// arrived with the first try
		{"set to 2099", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), time.Hour + time.Second},
	} {
		t.Run(x.name, func(t *testing.T) {
			t.Parallel()
			dirs, droids := queenClones(t, testgit.FileRemote(t), 3)
			holder, thief, other := 0, 1, 2
			c := &stealClock{t: t, now: stealT0}
			c.must(dirs[other], droids[other], "reserve", "lib/**", "--ttl", "7d")
			c.now = x.clock
			c.must(dirs[holder], droids[holder], "reserve", "src/**", "--ttl", "7d")
			c.must(dirs[holder], droids[holder], "claim", "qb-1")
			for _, at := range []time.Duration{time.Second, x.stillSeen - time.Second, x.stillSeen + time.Second} {
				c.now = stealT0.Add(at)
				for _, args := range [][]string{{"reserve", "src/a/**", "--steal"}, {"claim", "qb-1", "--steal"}} {
					got := c.queen(dirs[thief], droids[thief], args...)
					if at < x.stillSeen && (got.code != 5 || !strings.Contains(got.stderr, "nothing was stolen: "+droids[holder]+" was last seen")) {
						t.Fatalf("at +%s: %s; want exit 5: %s was seen", at, describeRun(args, got), droids[holder])
					}
					if at > x.stillSeen && (got.code != 0 || !strings.Contains(got.stdout, "from "+droids[holder])) {
						t.Fatalf("at +%s: %s; want it stolen", at, describeRun(args, got))
					}
				}
			}
		})
	}
}
