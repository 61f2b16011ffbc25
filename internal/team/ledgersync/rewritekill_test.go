package ledgersync

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// An archive killed between its recording and its rewrite (before the
// ledger ref moves, or after) leaves nothing half done: the logs are as
// they were, the next sync records what the ledger lacks once, and the
// other clone receives the version once.
func TestAnArchiveKilledAfterItsRecordingLosesNothing(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, point := range []string{"intent-saved", "ref-moved"} {
		t.Run(point, func(t *testing.T) {
			r := newRemote(t)
			c := &clock{base.Add(time.Hour)}
			a, b := newClone(t, r, c), newClone(t, r, c)
			a.sync(t)
			id := ids.NewMessage()
			a.write(t, records.MessagesFile, messageAt(id, base, "unsynced"))
			own := a.s.Log(records.MessagesFile).Path
			before, err := os.ReadFile(own)
			if err != nil {
				t.Fatal(err)
			}
			errCrash := errors.New("killed")
			testHook = func(p string) error {
				if p == point {
					return errCrash
				}
				return nil
			}
			_, err = a.sy.Rewrite(archiveBefore(base.Add(time.Minute)))
			testHook = nil
			if !errors.Is(err, errCrash) {
				t.Fatalf("the crash at %s did not happen: %v", point, err)
			}
			if after, err := os.ReadFile(own); err != nil || string(after) != string(before) {
				t.Fatalf("the log changed under a killed archive (%v):\n%s", err, after)
			}
			if _, err := a.sy.Rewrite(archiveBefore(base.Add(time.Minute))); err != nil {
				t.Fatal(err)
			}
			a.sync(t)
			b.sync(t)
			if got := b.receivedSubjects(t, id); len(got) != 1 || got[0] != "unsynced" {
				t.Fatalf("b received %v, want [unsynced]", got)
			}
			noRepeats(t, "the ledger", a.ledgerLines(t))
			data, _ := os.ReadFile(store.ReceivedPath(b.s.WS, records.MessagesFile))
			noRepeats(t, "received/", strings.Split(strings.TrimSpace(string(data)), "\n"))
		})
	}
}
