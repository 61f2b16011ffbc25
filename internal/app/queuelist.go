package app

import (
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// WaitingRow is a place in the queue for paths, as reservations lists it:
// the place as written (status "waiting"; expires_at is when it lapses
// unless its waiter renews it), its position among the places that
// contest its paths (1: next), and the droids it waits for.
type WaitingRow struct {
	records.Reservation
	Position int      `json:"position"`
	WaitsFor []string `json:"waits_for"`
}

// waitingRows is the queue a listing shows: the places f keeps, in line.
func waitingRows(s *store.Store, f reservations.Filter) ([]WaitingRow, error) {
	queue, err := (&reservations.Store{S: s}).Queue(f)
	if err != nil || len(queue) == 0 {
		return nil, err
	}
	rows := make([]WaitingRow, 0, len(queue))
	for _, st := range queue {
		rows = append(rows, WaitingRow{Reservation: st.Place, Position: st.Position, WaitsFor: jsonline.NonNil(st.WaitsFor)})
	}
	return rows, nil
}
