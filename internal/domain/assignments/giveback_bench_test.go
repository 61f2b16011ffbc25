package assignments

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// benchHistory is a live store holding ended assignments, dated an hour
// before t0, then live ones: bd-live-0 to bd-live-9, ann's, active at t0.
func benchHistory(b *testing.B, ended int) *fixture {
	f := newFixture(b)
	var lines []string
	for i := range ended {
		start := activeLine(b, fmt.Sprintf("qa-01KB%022d", i), fmt.Sprint("bd-old-", i), "bob", t0.Add(-time.Hour))
		lines = append(lines, start, endLine(b, start))
	}
	for i := range 10 {
		lines = append(lines, activeLine(b, fmt.Sprintf("qa-01KC%022d", i), fmt.Sprint("bd-live-", i), "ann", t0))
	}
	if err := f.a.S.Update(func(tx *jsonl.Tx) error { return tx.Append(f.a.S.Log(records.AssignmentsFile), raws(lines...)...) }); err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkGiveBackUnpublished is a sync finding a claim --steal it has
// not published, whose holder was seen since: bob steals bd-live-0 from
// ann and the sync gives it back, over 1,000 and 10,000 ended
// assignments. The cost should not grow with them.
//
//	go test ./internal/domain/assignments -run '^$' -bench GiveBack -benchmem
func BenchmarkGiveBackUnpublished(b *testing.B) {
	for _, ended := range []int{1000, 10000} {
		b.Run(fmt.Sprint("ended=", ended), func(b *testing.B) {
			f := benchHistory(b, ended)
			b.ReportAllocs()
			for b.Loop() {
				f.now = f.now.Add(time.Second)
				f.stealGivenBack(b, "bd-live-0", "qa-01KC0000000000000000000000")
			}
		})
	}
}

// stealGivenBack has bob claim issue with --steal from ann (whose
// assignment is anns), then a sync give it back: ann was seen since.
func (f *fixture) stealGivenBack(tb testing.TB, issue, anns string) {
	tb.Helper()
	err := f.a.S.Update(func(tx *jsonl.Tx) error {
		info, err := os.Stat(f.a.S.Log(records.AssignmentsFile).Path)
		if err != nil {
			return err
		}
		if _, err := f.a.AssignIn(tx, Request{IssueID: issue, Droid: "bob", By: "bob", Steal: func(string, time.Time) error { return nil }}); err != nil {
			return err
		}
		back, err := f.a.GiveBackUnpublished(tx, info.Size(), map[string]bool{anns: true}, nil, func(string, time.Time) error { return errors.New("seen lately") })
		if err == nil && len(back) != 1 {
			err = fmt.Errorf("given back: %+v, want bob's claim", back)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkForcedSince is doctor's list of forced changes since t0: three
// of the live assignments, ended by bob with --force, over 1,000 and
// 10,000 assignments that ended an hour before. The cost should not grow
// with them.
//
//	go test ./internal/domain/assignments -run '^$' -bench ForcedSince -benchmem
func BenchmarkForcedSince(b *testing.B) {
	for _, ended := range []int{1000, 10000} {
		b.Run(fmt.Sprint("ended=", ended), func(b *testing.B) {
			f := benchHistory(b, ended)
			for i := range 3 {
				f.now = f.now.Add(time.Second)
				if _, err := f.a.End(UnassignRequest{IssueID: fmt.Sprint("bd-live-", i), By: "bob", Force: true}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if changes, err := f.a.ForcedSince(t0); err != nil || len(changes) != 3 {
					b.Fatalf("%+v, %v", changes, err)
				}
			}
		})
	}
}
