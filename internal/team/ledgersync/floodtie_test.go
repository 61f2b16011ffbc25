package ledgersync

import (
	"fmt"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// The flood check kept, of two versions of an id written at the same
// time, the later line, where every reader keeps the larger bytes: a push
// that gave each of 4,106 ids an active version and, after it, a smaller
// one already expired at the same time counted no active reservation,
// and the sync applied them all. At an equal time the check now counts
// an id active when any of its newest versions is.
func TestAFloodHiddenByEqualTimesIsSetAside(t *testing.T) {
	_, b, c, push := twoSyncedClones(t)
	written := c.t.Add(-2 * time.Hour).Format(time.RFC3339Nano)
	version := func(i int, expires time.Time) []byte {
		return fmt.Appendf(nil, `{"id":"qr-01KB%022d","created_at":%q,"updated_at":%q,"expires_at":%q,"pattern":"z%d/**","droid":"m%d","status":"active","exclusive":true}`,
			i, written, written, expires.Format(time.RFC3339Nano), i, i)
	}
	var lines [][]byte
	for i := range 2*records.MaxActiveReservations + 10 { // past what a sync takes
		active, expired := version(i, c.t.Add(time.Hour)), version(i, c.t.Add(-time.Hour))
		if !records.Newer(active, expired) {
			t.Fatal("the test means the active version to win on its bytes")
		}
		lines = append(lines, active, expired)
	}
	flood := push(ledger.Lines{records.ReservationsFile: lines})

	res := b.sync(t)
	if len(res.SetAside) != 1 || res.SetAside[0].Commit != flood.String() {
		t.Errorf("set aside: %+v, want the flood", res.SetAside)
	}
	if active, err := (&reservations.Store{S: b.s}).Active(c.now()); err != nil || len(active) > records.MaxActiveReservations {
		t.Errorf("bob holds %d active reservations after the sync (%v), more than git-queen holds at once", len(active), err)
	}
}
