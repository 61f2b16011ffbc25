package ledgersync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// What the random histories taught, case by case: each says what a sync
// applies of a version older than one the clone holds, wherever it holds
// it.
func TestAnOlderVersionIsAppliedOnlyWhereNoLogHoldsANewer(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		// before runs on the receiving clone b after it received "new"
		// (written at base+2s), before "old" (base+1s) arrives.
		before func(t *testing.T, b *clone)
		// applied says whether "old" is appended to b's received log.
		applied bool
	}{
		{"the received log holds the newer", func(*testing.T, *clone) {}, false},
		{"the received log's index is deleted", func(t *testing.T, b *clone) {
			l := b.s.ReceivedLog(records.MessagesFile)
			if err := os.Remove(jsonl.IndexPath(l.CacheDir, l.Path)); err != nil {
				t.Fatal(err)
			}
		}, false},
		// A lookup that finds an entry's block damaged removes the index
		// (the next append rebuilds it): the log is read instead.
		{"the received log's index is damaged in its entries", func(t *testing.T, b *clone) {
			l := b.s.ReceivedLog(records.MessagesFile)
			path := jsonl.IndexPath(l.CacheDir, l.Path)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			const entries = 1120 // the header's size: the sorted entries follow it
			if len(data) < entries+32 {
				t.Fatalf("the index holds no sorted entry (%d bytes)", len(data))
			}
			data[entries+3] ^= 0xff // the first entry's id hash
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"another program appended to the received log", func(t *testing.T, b *clone) {
			f, err := os.OpenFile(b.s.ReceivedLog(records.MessagesFile).Path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("\n")
			f.Close()
		}, false},
		{"the received log was compacted", func(t *testing.T, b *clone) {
			if _, err := b.sy.Rewrite(func(tx *jsonl.Tx, log *jsonl.Log, marks []int64) (jsonl.RewriteStats, []int64, error) {
				return tx.Compact(log, marks)
			}); err != nil {
				t.Fatal(err)
			}
		}, false},
		// Archive moves every version of the record out of received/:
		// the archive's own index knows the newer one.
		{"the record was archived", func(t *testing.T, b *clone) {
			if _, err := b.sy.Rewrite(archiveBefore(base.Add(time.Hour))); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"the record was archived, and the archive's index deleted", func(t *testing.T, b *clone) {
			if _, err := b.sy.Rewrite(archiveBefore(base.Add(time.Hour))); err != nil {
				t.Fatal(err)
			}
			a := b.s.ReceivedLog(records.MessagesFile).ArchiveLog()
			if err := os.Remove(jsonl.IndexPath(a.CacheDir, a.Path)); err != nil {
				t.Fatal(err)
			}
		}, false},
		// The one place the version index knew more: the ledger holds
		// the newer version, no log does. The version index refused
		// "old", and received/ held no version of the record at all;
		// now "old" is applied, and readers see the newest version this
		// clone still has.
		{"the received log was deleted", func(t *testing.T, b *clone) {
			if err := os.Remove(b.s.ReceivedLog(records.MessagesFile).Path); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRemote(t)
			c := &clock{base.Add(time.Hour)}
			a, b := newClone(t, r, c), newClone(t, r, c)
			id := ids.NewMessage()
			a.write(t, records.MessagesFile, messageAt(id, base.Add(2*time.Second), "new"))
			a.sync(t)
			b.sync(t)
			if got := b.receivedSubjects(t, id); len(got) != 1 || got[0] != "new" {
				t.Fatalf("b received %v, want [new]", got)
			}
			tc.before(t, b)
			a.write(t, records.MessagesFile, messageAt(id, base.Add(time.Second), "old"))
			a.sync(t)
			b.sync(t)
			got := b.receivedSubjects(t, id)
			applied := len(got) > 0 && got[len(got)-1] == "old"
			if applied != tc.applied {
				t.Fatalf("received/ holds %v of the record: applied %v, want %v", got, applied, tc.applied)
			}
		})
	}
}

// The version index an earlier release kept (.git/queen/index/, 4,096
// files) is removed by the first sync that receives anything.
func TestASyncRemovesTheOldVersionIndex(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	old := filepath.Join(b.s.WS.Dir, "index")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"head", "000", "fff"} {
		if err := os.WriteFile(filepath.Join(old, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a.send(t, "ann", "bob", "hello")
	a.sync(t)
	if res := b.sync(t); res.Received["messages"] != 1 {
		t.Fatalf("b received %v", res.Received)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("the old version index is still there: %v", err)
	}
	if _, err := os.Stat(b.s.WS.Dir); err != nil {
		t.Fatal(err)
	}
}

// A version in this clone's own log counts as held whether or not it
// obeys every rule: an older version that arrives after it is not
// applied. The version index left out versions that break a rule wherever
// they came from, and applied it; a reader took the own log's newer
// version as current either way (versions are read by their time, not
// their rules), so only received/ differs.
func TestAnOwnVersionThatBreaksARuleCountsAsHeld(t *testing.T) {
	r := newRemote(t)
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	c := &clock{base.Add(time.Hour)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.sync(t)
	id := ids.NewMessage()
	own := messageAt(id, base.Add(3*time.Second), strings.Repeat("x", records.MaxSubject+1))
	if records.CheckVersion(records.MessagesFile, own) == nil {
		t.Fatal("the own version obeys every rule")
	}
	b.write(t, records.MessagesFile, own) // another writer of b's live store
	b.sync(t)
	a.write(t, records.MessagesFile, messageAt(id, base.Add(time.Second), "older"))
	a.sync(t)
	b.sync(t)
	if got := b.receivedSubjects(t, id); len(got) != 0 {
		t.Fatalf("b applied %v, older than its own version", got)
	}
}

// A version dated after 2262 (or before 1678), which an int64 of
// nanoseconds since 1970 does not hold: a log's index keeps it to the
// second, in order (jsonl.VersionTimeOf), and knownVersions reads the
// version's own time, so both answers agree. It was known here as one
// written in the 1710s (the int64 wrapped), and sync applied a 2026
// version over one dated 2300, which the version index refused.
func TestAVersionAfter2262IsKnownByItsOwnTime(t *testing.T) {
	r := newRemote(t)
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	c := &clock{base.Add(time.Hour)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	id := ids.NewMessage()
	far := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	a.write(t, records.MessagesFile, messageAt(id, far, "far"))
	a.sync(t)
	b.sync(t)
	a.write(t, records.MessagesFile, messageAt(id, base, "honest"))
	a.sync(t)

	tip, err := b.sy.ledger.Refs().Read(ledger.Ref)
	if err != nil {
		t.Fatal(err)
	}
	vi := &versionIndex{dir: filepath.Join(t.TempDir(), "index"), now: c.now()}
	if err := vi.catchUp(b.sy.ledger, tip); err != nil {
		t.Fatal(err)
	}
	want, err := vi.newest([]string{id})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]time.Time
	if err := b.s.Update(func(tx *jsonl.Tx) error {
		k := newKnownVersions(tx, b.s)
		defer k.close()
		got, err = k.newest(records.MessagesFile, []string{id})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if want[id] != records.TimeKey(far) || records.TimeKey(got[id]) != want[id] {
		t.Fatalf("the version index knows %q, the logs' indexes %q", want[id], records.TimeKey(got[id]))
	}
	b.sync(t)
	if subjects := b.receivedSubjects(t, id); len(subjects) != 1 || subjects[0] != "far" {
		t.Fatalf("received/ holds %v of the record, want [far]", subjects)
	}
}

// A log with no index to be had is read once a merge, not once a chunk:
// the second question is answered from what the first read, even with
// the file gone.
func TestALogWithoutAnIndexIsReadOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), records.MessagesFile)
	first, second := ids.NewMessage(), ids.NewMessage()
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	data := append(append(messageAt(first, at, "a"), '\n'), append(messageAt(second, at.Add(time.Second), "b"), '\n')...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	kl := &knownLog{log: &jsonl.Log{Path: path, Versions: records.Versions}}
	out := map[string]time.Time{}
	if err := kl.newest([]string{first}, out); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := kl.newest([]string{second}, out); err != nil {
		t.Fatal(err)
	}
	if !out[first].Equal(at) || !out[second].Equal(at.Add(time.Second)) {
		t.Fatalf("newest = %v, want %s at %v and %s at %v", out, first, at, second, at.Add(time.Second))
	}
}
