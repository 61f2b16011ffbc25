package ledgersync

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// TestAVersionCarriedTwiceAfterARewriteIsAppliedOnce: a version this
// clone received, then moved to its archive (git queen archive) or kept
// through a compaction, is not applied again when the ledger carries it a
// second time, nor is a smaller version of the same time; a larger one
// is, once.
func TestAVersionCarriedTwiceAfterARewriteIsAppliedOnce(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	compact := func(tx *jsonl.Tx, log *jsonl.Log, marks []int64) (jsonl.RewriteStats, []int64, error) {
		return tx.Compact(log, marks)
	}
	for _, rw := range []struct {
		name string
		do   Rewrite
	}{{"archived", archiveBefore(base.Add(time.Minute))}, {"compacted", compact}} {
		t.Run(rw.name, func(t *testing.T) {
			r := newRemote(t)
			c := &clock{base.Add(time.Hour)}
			a, b := newClone(t, r, c), newClone(t, r, c)
			id := ids.NewMessage()
			at := base.Add(time.Second)
			line, smaller, larger := messageAt(id, at, "once"), messageAt(id, at, "a smaller"), messageAt(id, at, "z larger")
			a.send(t, "ann", "bob", "first")
			a.write(t, records.MessagesFile, line)
			a.sync(t)
			b.sync(t)
			if _, err := b.sy.Rewrite(rw.do); err != nil {
				t.Fatal(err)
			}
			count := func(v []byte) int {
				n := bytes.Count(b.received(t), v)
				archive, err := os.ReadFile(b.s.ReceivedLog(records.MessagesFile).ArchiveLog().Path)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				return n + bytes.Count(archive, v)
			}
			if n := count(line); n != 1 {
				t.Fatalf("after the rewrite b holds the version %d times", n)
			}
			tip := craft(t, a.dir, a.tip(t), c.t, map[string][][]byte{"messages/2026-11/000/05.jsonl": {line}})
			b.sync(t)
			tip = craft(t, a.dir, tip, c.t, map[string][][]byte{"messages/2026-11/000/06.jsonl": {smaller}})
			b.sync(t)
			if n, m := count(line), count(smaller); n != 1 || m != 0 {
				t.Errorf("b holds the version %d times and the smaller one %d times, want 1 and 0", n, m)
			}
			craft(t, a.dir, tip, c.t, map[string][][]byte{"messages/2026-11/000/07.jsonl": {larger, line}})
			b.sync(t)
			if n, m := count(line), count(larger); n != 1 || m != 1 {
				t.Errorf("b holds the version %d times and the larger one %d times, want 1 and 1", n, m)
			}
			if got := b.current(t, id); got != string(larger) {
				t.Errorf("b reads %s, want the larger", got)
			}
			soundReceived(t, "b", b)
		})
	}
}
