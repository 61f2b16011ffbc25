package ledgersync

import (
	"testing"
	"time"
)

// TestJitterWindowFollowsTheRound: after a lost race a clone waits up to
// half a round per race lost (up to four), within the bounds, whatever
// the attempt number or round it is given.
func TestJitterWindowFollowsTheRound(t *testing.T) {
	for _, c := range []struct {
		attempt int
		round   time.Duration
		want    time.Duration
	}{
		{1, 200 * time.Millisecond, 100 * time.Millisecond},
		{2, 200 * time.Millisecond, 200 * time.Millisecond},
		{4, 200 * time.Millisecond, 400 * time.Millisecond},
		{9, 200 * time.Millisecond, 400 * time.Millisecond}, // four races at most
		{0, 200 * time.Millisecond, 100 * time.Millisecond}, // as the first
		{-3, 200 * time.Millisecond, 100 * time.Millisecond},
		{1, 0, minJitter},                // a fetch's lock retry: no round
		{3, time.Millisecond, minJitter}, // a round on this machine
		{2, 10 * time.Second, maxJitter}, // a remote across the world
		{60, time.Hour, maxJitter},       // never more than the bound
		{1, -time.Second, minJitter},     // a clock that stepped back
	} {
		if got := jitterWindow(c.attempt, c.round); got != c.want {
			t.Errorf("jitterWindow(%d, %v) = %v, want %v", c.attempt, c.round, got, c.want)
		}
	}
}
