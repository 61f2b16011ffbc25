package ledgersync

import (
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// A message dated 2099 is noted as a sighting when it arrived, and the
// note ends a week later, not in 2099: notes of a flood of such messages
// would otherwise be read and written again by every sync till then.
func TestArrivalsOfAFarFutureMessageEndWithinAWeek(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	line := []byte(`{"id":"qm-1","created_at":"2099-01-01T00:00:00Z","updated_at":"2099-01-01T00:00:00Z","from":"ann","to":"bob"}`)
	got, _ := arrivalsOf([][]byte{line}, nil, now)
	if len(got) != 1 || !got[0].At.Equal(now) || got[0].Until.After(now.Add(records.MaxReservationTTL)) {
		t.Fatalf("arrivals %+v, want one noted now and ending within %s", got, records.MaxReservationTTL)
	}
}
