package ledgersync

import (
	"errors"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/domain/roster"
)

// A holder whose clock runs behind looks silent while it works: ann's
// clock is 65 minutes slow, so the claim and the reservation she makes
// are dated 65 minutes ago (her reservation, made before any other
// clone wrote, is granted). carl's syncs read her clone's clock as behind
// (her commits merge his and are dated before them), and his own as right
// (bob agrees with him); still, a steal judges her by her dates. carl's
// claim --steal and reserve --steal are refused while her clock is known
// to be slow, and what she holds stays hers.
func TestAStealWaitsForTheHoldersClockToBeRight(t *testing.T) {
	r := newRemote(t)
	here := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	slow := &clock{here.t.Add(-65 * time.Minute)}
	a, b, c := newClone(t, r, slow), newClone(t, r, here), newClone(t, r, here)
	if _, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true, TTL: 7 * 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	b.send(t, "bob", "carl", "1")
	b.sync(t)
	c.send(t, "carl", "bob", "2")
	c.sync(t)
	if _, err := a.sy.Assign("origin", claimReq("qb-7", "ann")); err != nil {
		t.Fatal(err)
	}
	if res := c.sync(t); res.ClockOff != nil || len(res.Clocks) != 1 {
		t.Fatalf("carl reads the clocks as %+v (his own off: %v); want ann's behind, his right", res.Clocks, res.ClockOff)
	}
	req := claimReq("qb-7", "carl")
	req.Steal = (&roster.Store{S: c.s}).SilentCheck(time.Hour, "claim")
	_, err := c.sy.Assign("origin", req)
	var slowErr *SlowClockError
	if !errors.As(err, &slowErr) {
		t.Errorf("claim --steal from ann, whose clock is 65 minutes slow: %v; want a SlowClockError", err)
	}
	_, err = c.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/x/**"}, Droid: "carl", Exclusive: true, TTL: time.Hour,
		Steal: (&roster.Store{S: c.s}).SilentCheck(time.Hour, "reservation")})
	if !errors.As(err, &slowErr) {
		t.Errorf("reserve --steal from ann, whose clock is 65 minutes slow: %v; want a SlowClockError", err)
	}
	a.sync(t)
	if got := a.activeAssignments(t); len(got) != 1 || got[0] != "ann qb-7" {
		t.Errorf("after the refused steal: %v", got)
	}
	active, err := (&reservations.Store{S: a.s}).Active(a.s.Now())
	var held []string
	for _, l := range active {
		held = append(held, l.Droid+" "+l.Pattern)
	}
	if err != nil || len(held) != 1 || held[0] != "ann src/**" {
		t.Errorf("after the refused steal: %v %v; want ann's src/** alone", held, err)
	}
}
