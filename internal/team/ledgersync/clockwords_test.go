package ledgersync

import (
	"strings"
	"testing"
	"time"
)

// A refused grant says that nothing was reserved; doctor and a sync's
// warning, which refuse nothing, give the reason alone. Both say what to
// do when this clock is the right one: commits name their clone, and a
// pusher can make up clones that outnumber the team's.
func TestClockErrorWords(t *testing.T) {
	e := &ClockError{Offset: -time.Hour, Peers: []ClockWarning{{Clone: "c1", Writer: "fake1", Offset: time.Hour}}}
	text, reason := e.Error(), e.Reason().String()
	if !strings.HasPrefix(text, "no exclusive reservation was made: this machine's clock is at least 1h0m behind the other clones' (fake1)") {
		t.Errorf("the refusal: %q", text)
	}
	if strings.Contains(reason, "no exclusive reservation was made") || !strings.HasPrefix(reason, "this machine's clock is at least 1h0m behind") {
		t.Errorf("the reason: %q", reason)
	}
	for _, s := range []string{text, reason} {
		if !strings.Contains(s, "set the clock right") || !strings.Contains(s, "if it is right, those clones' commits were dated wrong, and what they showed ends a day after it was read") {
			t.Errorf("no way on for a clock that is right: %q", s)
		}
	}
}

// A refused claim --steal says that nothing was stolen and to claim
// again, not that no reservation was made and to reserve again.
func TestClockErrorWordsForAClaimSteal(t *testing.T) {
	e := (&ClockError{Offset: time.Hour, Peers: []ClockWarning{{Clone: "c1", Writer: "ann", Offset: -time.Hour}}}).Stealing("claim")
	text := e.Error()
	if !strings.HasPrefix(text, "nothing was stolen: this machine's clock is at least 1h0m ahead of the other clones' (ann)") ||
		!strings.Contains(text, "then sync and claim again") || strings.Contains(text, "reserv") {
		t.Errorf("the refusal: %q", text)
	}
}
