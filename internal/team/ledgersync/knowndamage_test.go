package ledgersync

import (
	"os"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// An index that opens (its header and state match the log) but whose
// entries fail their checksum is found by the lookup, and the log is
// read instead: an older version that arrives after the newer one is
// still not applied.
func TestAReceivedIndexDamagedUnderItsHeaderIsReadAround(t *testing.T) {
	r := newRemote(t)
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	c := &clock{base.Add(time.Hour)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	id := ids.NewMessage()
	a.write(t, records.MessagesFile, messageAt(id, base.Add(2*time.Second), "new"))
	a.sync(t)
	b.sync(t)
	// An index rebuilt from nothing has sorted entries and no appended
	// records: its last bytes are the checksum of its blocks' checksums.
	// (Reindex of an index a foreign append left behind only adds a
	// record for the new lines: the index is removed first.)
	l := b.s.ReceivedLog(records.MessagesFile)
	path := jsonl.IndexPath(l.CacheDir, l.Path)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := b.s.Update(func(tx *jsonl.Tx) error { tx.Reindex(l); return nil }); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0x5a
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	ix, ok := jsonl.OpenIndex(l.CacheDir, l.Path, info)
	if !ok {
		t.Fatal("the damaged index does not open: the test damaged its header, not its entries")
	}
	ix.Close()
	a.write(t, records.MessagesFile, messageAt(id, base.Add(time.Second), "old"))
	a.sync(t)
	b.sync(t)
	if got := b.receivedSubjects(t, id); len(got) != 1 || got[0] != "new" {
		t.Fatalf("received/ holds %v of the record, want [new]", got)
	}
}
