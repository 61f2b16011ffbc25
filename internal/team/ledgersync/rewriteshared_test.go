package ledgersync

import (
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

func compactAll(tx *jsonl.Tx, log *jsonl.Log, marks []int64) (jsonl.RewriteStats, []int64, error) {
	return tx.Compact(log, marks)
}

// A compaction or an archive of a store that stays on its machine (never
// recorded or synced, no queen.remote) writes no ledger: recording its
// whole store first cost 20 times the compaction. One that shares its
// store (queen.remote set, not synced yet) records what it wrote before
// an archive moves it, and the other clones receive it.
func TestARewriteRecordsOnlyWhereTheLedgerIsInUse(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		remote   bool // queen.remote is set
		rewrite  Rewrite
		recorded bool
	}{
		{"a compaction, the store unshared", false, compactAll, false},
		{"an archive, the store unshared", false, archiveBefore(base.Add(time.Minute)), false},
		{"a compaction, queen.remote set", true, compactAll, true},
		{"an archive, queen.remote set", true, archiveBefore(base.Add(time.Minute)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRemote(t)
			c := &clock{base.Add(time.Hour)}
			a := newClone(t, r, c)
			if tc.remote {
				testgit.Run(t, a.dir, "config", "queen.remote", "origin")
			}
			id := ids.NewMessage()
			a.write(t, records.MessagesFile, messageAt(id, base, "unsynced"))
			if _, err := a.sy.Rewrite(tc.rewrite); err != nil {
				t.Fatal(err)
			}
			tip, err := a.sy.ledger.Refs().Read(ledger.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if recorded := !tip.IsZero(); recorded != tc.recorded {
				t.Fatalf("the ledger ref is %v after the rewrite: recorded %v, want %v", tip, recorded, tc.recorded)
			}
			if !tc.remote {
				return
			}
			b := newClone(t, r, c)
			a.sync(t)
			b.sync(t)
			if got := b.receivedSubjects(t, id); len(got) != 1 || got[0] != "unsynced" {
				t.Fatalf("b received %v, want [unsynced]", got)
			}
		})
	}
}
