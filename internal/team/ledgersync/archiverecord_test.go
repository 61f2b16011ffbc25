package ledgersync

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// messageAt is a version of message id written at updated.
func messageAt(id string, updated time.Time, subject string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"created_at":"2026-11-23T11:00:00Z","updated_at":%q,"from":"ann","to":"bob","subject":%q,"body":"","importance":"normal","read":false}`,
		id, updated.Format(time.RFC3339Nano), subject)
}

func (c *clone) write(t *testing.T, file string, line []byte) {
	t.Helper()
	if err := c.s.Update(func(tx *jsonl.Tx) error { return tx.Append(c.s.Log(file), line) }); err != nil {
		t.Fatal(err)
	}
}

// receivedSubjects are the subjects of the versions of id in the received
// messages log, in its order.
func (c *clone) receivedSubjects(t *testing.T, id string) []string {
	t.Helper()
	data, err := os.ReadFile(store.ReceivedPath(c.s.WS, records.MessagesFile))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for line := range bytes.Lines(data) {
		if m, err := records.DecodeMessage(bytes.TrimSpace(line)); err == nil && m.ID == id {
			out = append(out, m.Subject)
		}
	}
	return out
}

func archiveBefore(cutoff time.Time) Rewrite {
	return func(tx *jsonl.Tx, log *jsonl.Log, marks []int64) (jsonl.RewriteStats, []int64, error) {
		return tx.Archive(log, func(r jsonl.Record) bool { return records.VersionTime(r.Raw).Before(cutoff) }, marks)
	}
}

// An archive run between two syncs records what this clone wrote since
// the last one before it moves records out of the log: a version moved
// first never reached the ledger, and no other clone ever received it.
func TestArchiveRecordsWhatItMovesFirst(t *testing.T) {
	r := newRemote(t)
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	c := &clock{base.Add(time.Hour)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.sync(t)
	id := ids.NewMessage()
	a.write(t, records.MessagesFile, messageAt(id, base, "unsynced"))
	if _, err := a.sy.Rewrite(archiveBefore(base.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	b.sync(t)
	if got := b.receivedSubjects(t, id); len(got) != 1 || got[0] != "unsynced" {
		t.Fatalf("b received %v of the record archived before a synced, want [unsynced]", got)
	}
	noRepeats(t, "the ledger", a.ledgerLines(t))
}
