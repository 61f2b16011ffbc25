package ledgersync

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// A clone that joins hands the received log's index the ids and times it
// vetted, not the lines to read again: the index it ends with places
// every id where the log's current version is, as one rebuilt from the
// log does (versions of one id in several chunks, ties of time included).
func TestAJoinIndexesTheReceivedLogAsARebuildWould(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	writer, joiner := newClone(t, r, c), newClone(t, r, c)
	var ids []string
	for i := range 120 {
		m := writer.send(t, "ann", "bob", "hello")
		ids = append(ids, m.ID)
		if i%3 == 0 {
			writer.sync(t) // versions of one id in several commits, and chunks
		}
		if i%4 == 0 { // a second version at the same time: a tie
			if _, _, err := (&messages.Store{S: writer.s}).MarkRead(ids[i/2], "bob"); err != nil {
				t.Fatal(err)
			}
		}
		c.tick(time.Second)
	}
	writer.sync(t)
	joiner.sync(t)

	log := joiner.s.ReceivedLog(records.MessagesFile)
	lookups := func(step string) map[string]string {
		info, err := os.Stat(log.Path)
		if err != nil {
			t.Fatal(err)
		}
		ix, ok := jsonl.OpenIndex(log.CacheDir, log.Path, info)
		if !ok {
			t.Fatalf("%s: no index covers the received log", step)
		}
		defer ix.Close()
		f, err := os.Open(log.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		out := map[string]string{}
		for _, id := range ids {
			off, nanos, found, err := ix.Lookup(id)
			if err != nil || !found {
				t.Fatalf("%s: %s: found %v, %v", step, id, found, err)
			}
			line, err := jsonl.ReadLine(f, off, nil)
			if err != nil {
				t.Fatal(err)
			}
			out[id] = string(line) + " " + time.Unix(0, nanos).UTC().String()
		}
		return out
	}
	joined := lookups("after the join")
	st, err := log.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Records) != len(ids) {
		t.Fatalf("the received log holds %d records, want %d", len(st.Records), len(ids))
	}
	for _, rec := range st.Records {
		if !strings.HasPrefix(joined[rec.ID], string(rec.Raw)+"\n") {
			t.Fatalf("%s: the index places %q, a load finds %q", rec.ID, joined[rec.ID], rec.Raw)
		}
	}
	if err := os.Remove(jsonl.IndexPath(log.CacheDir, log.Path)); err != nil {
		t.Fatal(err)
	}
	if err := log.Lock.Do(func(tx *jsonl.Tx) error { return tx.Append(log) }); err != nil { // no index: rebuilt from the log
		t.Fatal(err)
	}
	rebuilt := lookups("after a rebuild")
	for _, id := range ids {
		if joined[id] != rebuilt[id] {
			t.Fatalf("%s: the join's index says %s, a rebuild %s", id, joined[id], rebuilt[id])
		}
	}
}
