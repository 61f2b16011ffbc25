package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// liveStore is a live store in a temporary directory, with a received log.
func liveStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	return &Store{WS: &workspace.Workspace{Dir: dir, Live: true}, NoSync: true}
}

func write(t *testing.T, path string, lines ...string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

const (
	a1 = `{"id":"qm-a","updated_at":"2026-11-01T00:00:00Z","v":1}`
	a2 = `{"id":"qm-a","updated_at":"2026-11-02T00:00:00Z","v":2}`
	a3 = `{"id":"qm-a","updated_at":"2026-11-03T00:00:00Z","v":3}`
	b1 = `{"id":"qm-b","updated_at":"2026-11-01T00:00:00Z","v":1}`
	c1 = `{"id":"qm-c","updated_at":"2026-11-01T00:00:00Z","v":1}`
)

func TestImportIsIdempotentAndKeepsTheNewest(t *testing.T) {
	s := liveStore(t)
	write(t, s.Log(records.MessagesFile).Path, a2)
	write(t, ReceivedPath(s.WS, records.MessagesFile), b1)
	legacy := filepath.Join(t.TempDir(), records.MessagesFile)
	write(t, legacy, a1, b1, c1, "not a record", a3)
	imp := func() ImportStats {
		var st ImportStats
		err := s.Update(func(tx *jsonl.Tx) error {
			var err error
			st, err = s.ImportFileIn(tx, records.MessagesFile, legacy, false)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// a1 is older than the store's a2; b1 is there (received); c1 and a3
	// are new; the line that is not a record stays where it was.
	if st := imp(); st.Imported != 2 || st.Older != 1 || st.Present != 1 || st.Unreadable != 1 {
		t.Fatalf("first import: %+v", st)
	}
	if got := read(t, s.Log(records.MessagesFile).Path); strings.Join(got, "\n") != strings.Join([]string{a2, c1, a3}, "\n") {
		t.Fatalf("the log after the import:\n%s", strings.Join(got, "\n"))
	}
	if st := imp(); st.Imported != 0 {
		t.Fatalf("a second import added %d lines", st.Imported)
	}
}

func TestExportAppendsOnlyWhatTheFileLacks(t *testing.T) {
	s := liveStore(t)
	// Versions as a1 to c1, of records the export writes (records.CheckVersion).
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	a1, a2, a3 := message(1, day(1), "v1"), message(1, day(2), "v2"), message(1, day(3), "v3")
	b1, c1 := message(2, day(1), "v1"), message(3, day(1), "v1")
	write(t, s.Log(records.MessagesFile).Path, a1, c1)
	write(t, ReceivedPath(s.WS, records.MessagesFile), a2, b1)
	out := t.TempDir()
	export := func() ExportStats {
		stats, err := s.Export(out, []string{records.MessagesFile})
		if err != nil {
			t.Fatal(err)
		}
		return stats[0]
	}
	if st := export(); st.Records != 3 || st.Written != 3 {
		t.Fatalf("first export: %+v", st)
	}
	target := filepath.Join(out, records.MessagesFile)
	if got := read(t, target); strings.Join(got, "\n") != strings.Join([]string{a2, b1, c1}, "\n") {
		t.Fatalf("the export holds the current versions by id:\n%s", strings.Join(got, "\n"))
	}
	if st := export(); st.Written != 0 {
		t.Fatalf("a second export wrote %d lines", st.Written)
	}
	// A newer version is appended; nothing committed before it changes.
	write(t, s.Log(records.MessagesFile).Path, a1, c1, a3)
	if st := export(); st.Written != 1 {
		t.Fatalf("after a new version: %+v", st)
	}
	if got := read(t, target); strings.Join(got, "\n") != strings.Join([]string{a2, b1, c1, a3}, "\n") {
		t.Fatalf("the export after a new version:\n%s", strings.Join(got, "\n"))
	}
}

// An import skips the lines the archives hold: a worktree's export
// (.beads/), made before archive moved its records out of the logs, was
// imported back by the next init, every archived record then both in the
// archive and in the log, and counted by doctor as "not in the live store".
func TestImportSkipsWhatTheArchivesHold(t *testing.T) {
	s := liveStore(t)
	write(t, s.Log(records.MessagesFile).Path, a2)
	write(t, jsonl.ArchivePath(s.Log(records.MessagesFile).Path), b1)
	write(t, ReceivedPath(s.WS, records.MessagesFile), a2)
	write(t, jsonl.ArchivePath(ReceivedPath(s.WS, records.MessagesFile)), c1)
	st, err := importLines(t, s, b1, c1, a2)
	if err != nil || st.Imported != 0 || st.Present != 3 {
		t.Fatalf("import of an export the archives hold: %+v, %v; want nothing imported, 3 lines present", st, err)
	}
}

// An import skips a version older than one the archives hold: an export
// wrote a message unread, it was read (a later version), compact dropped
// the unread one and archive moved the read one out; the next init
// imported the unread version back, an archived message in the inbox
// again, unread.
func TestImportSkipsWhatTheArchivesHoldANewerVersionOf(t *testing.T) {
	s := liveStore(t)
	write(t, jsonl.ArchivePath(s.Log(records.MessagesFile).Path), a2)
	st, err := importLines(t, s, a1)
	if err != nil || st.Imported != 0 || st.Older != 1 {
		t.Fatalf("import of a version older than the archive's: %+v, %v; want nothing imported, 1 line older", st, err)
	}
}

// An import skips a version that gives a record other parties than the
// store's current version (rule parties, as sync applies it): a committed
// .beads/queen_messages.jsonl with a later version of ann's message to bob
// naming carl gave it to carl in every clone whose init imported it.
func TestImportSkipsAVersionOfOtherParties(t *testing.T) {
	s := liveStore(t)
	write(t, s.Log(records.MessagesFile).Path, `{"id":"qm-p","updated_at":"2026-11-01T00:00:00Z","from":"ann","to":"bob"}`)
	st, err := importLines(t, s, `{"id":"qm-p","updated_at":"2026-11-02T00:00:00Z","from":"ann","to":"carl"}`,
		`{"id":"qm-q","updated_at":"2026-11-02T00:00:00Z","from":"ann","to":"bob"}`,
		`{"id":"qm-q","updated_at":"2026-11-03T00:00:00Z","from":"ann","to":"carl"}`)
	if err != nil || st.Imported != 1 || st.OtherParties != 2 {
		t.Fatalf("import of versions naming other parties: %+v, %v; want 1 imported, 2 of other parties", st, err)
	}
}

// importLines imports lines, written to a messages log of their own, into
// s's messages.
func importLines(t *testing.T, s *Store, lines ...string) (st ImportStats, err error) {
	exported := filepath.Join(t.TempDir(), records.MessagesFile)
	write(t, exported, lines...)
	err = s.Update(func(tx *jsonl.Tx) error {
		st, err = s.ImportFileIn(tx, records.MessagesFile, exported, false)
		return err
	})
	return st, err
}
