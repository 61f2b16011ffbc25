package reservations

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// benchHistory is a live store holding reservations that expired an hour
// before t0, then live ones: ann's of live0/** to live9/**, exclusive,
// held from t0.
func benchHistory(b *testing.B, ended int) *fixture {
	f := newFixture(b)
	var lines []any
	old := t0.Add(-2 * time.Hour)
	for i := range ended {
		lines = append(lines, json.RawMessage(line(fmt.Sprintf("qr-01KB%022d", i), "bob", fmt.Sprintf("old%d/**", i), records.ReservationActive, true, old, old, old.Add(time.Hour))))
	}
	for i := range 10 {
		lines = append(lines, json.RawMessage(line(fmt.Sprintf("qr-01KC%022d", i), "ann", fmt.Sprintf("live%d/**", i), records.ReservationActive, true, t0, t0, t0.Add(time.Hour))))
	}
	if err := f.res.S.Update(func(tx *jsonl.Tx) error { return tx.Append(f.res.S.Log(records.ReservationsFile), lines...) }); err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkGiveBackUnpublished is a sync finding a reserve --steal it has
// not published, whose holder was seen since: bob steals live0/** from
// ann and the sync gives it back, over 1,000 and 10,000 expired
// reservations. The cost should not grow with them.
//
//	go test ./internal/domain/reservations -run '^$' -bench GiveBack -benchmem
func BenchmarkGiveBackUnpublished(b *testing.B) {
	for _, ended := range []int{1000, 10000} {
		b.Run(fmt.Sprint("ended=", ended), func(b *testing.B) {
			f := benchHistory(b, ended)
			b.ReportAllocs()
			for b.Loop() {
				f.clock.advance(time.Second)
				f.stealGivenBack(b, "live0/**")
			}
		})
	}
}

// stealGivenBack has bob reserve pattern with --steal from ann, then a
// sync give it back: ann was seen since.
func (f *fixture) stealGivenBack(tb testing.TB, pattern string) {
	tb.Helper()
	err := f.res.S.Update(func(tx *jsonl.Tx) error {
		info, err := os.Stat(f.logPath())
		if err != nil {
			return err
		}
		res, err := f.res.ReserveIn(tx, Request{Patterns: []string{pattern}, Droid: "bob", Exclusive: true, Steal: func(string, time.Time) error { return nil }})
		if err != nil {
			return err
		}
		back, err := f.res.GiveBackUnpublished(tx, info.Size(), map[string]bool{res.Stolen[0].ID: true}, map[string]bool{res.Granted[0].ID: true}, nil,
			func(string, time.Time) error { return errors.New("seen lately") })
		if err == nil && len(back) != 1 {
			err = fmt.Errorf("given back: %+v, want bob's grant", back)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkForcedSince is doctor's list of forced changes since t0: three
// of the live reservations, released by bob with --force, over 1,000 and
// 10,000 reservations that expired before. The cost should not grow with
// them.
//
//	go test ./internal/domain/reservations -run '^$' -bench ForcedSince -benchmem
func BenchmarkForcedSince(b *testing.B) {
	for _, ended := range []int{1000, 10000} {
		b.Run(fmt.Sprint("ended=", ended), func(b *testing.B) {
			f := benchHistory(b, ended)
			for i := range 3 {
				f.clock.advance(time.Second)
				if _, err := f.res.Change(ChangeRequest{By: "bob", Holder: "ann", Patterns: []string{fmt.Sprintf("live%d/**", i)}, Force: true}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if changes, err := f.res.ForcedSince(t0); err != nil || len(changes) != 3 {
					b.Fatalf("%+v, %v", changes, err)
				}
			}
		})
	}
}
