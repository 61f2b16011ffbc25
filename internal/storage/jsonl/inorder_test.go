package jsonl

import (
	"errors"
	"testing"
)

// TestInOrderStops: use sees the items in the order sent, and after its
// first error, every item sent is dropped, none lost, and produce ends.
func TestInOrderStops(t *testing.T) {
	for _, stopAt := range []int{-1, 0, 3, 999} {
		sent, used, dropped := 0, 0, 0
		boom := errors.New("boom")
		err := inOrder(func(send func(int) bool) error {
			for i := range 1000 {
				if !send(i) {
					return nil
				}
				sent++
			}
			return nil
		}, func(int) {}, func(i int) error {
			if i != used {
				t.Fatalf("use got %d, want %d", i, used)
			}
			used++
			if i == stopAt {
				return boom
			}
			return nil
		}, func(int) { dropped++ })
		if wantErr := stopAt >= 0; errors.Is(err, boom) != wantErr || (err != nil && !wantErr) {
			t.Errorf("stop at %d: err %v", stopAt, err)
		}
		if used+dropped != sent {
			t.Errorf("stop at %d: %d sent, %d used, %d dropped", stopAt, sent, used, dropped)
		}
	}
}
