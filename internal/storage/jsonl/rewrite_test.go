package jsonl

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// history has several versions per id, fields this program has never heard
// of (in odd spacing and key order that re-marshalling would change), lines
// that are not records, and a CRLF line.
var history = []string{
	`{"id":"qm-a","created_at":"2026-01-01T00:00:00Z","v":1,"zz-unknown":{"deep":[1,2,{"x":null}]}}`,
	`{"id":"qm-b", "created_at":"2026-03-01T00:00:00Z" ,"v":1}`,
	`not a record, but nobody's to throw away`,
	`{"id":"qm-a","created_at":"2026-01-01T00:00:00Z","v":2,"zz-unknown":{"deep":[1,2,{"x":null}]},"read":true}`,
	`{"v":"no id here"}`,
	`{"created_at":"2026-02-01T00:00:00Z","id":"qm-c","v":1,"émoji":"✓ \u00e9"}` + "\r",
	`{"id":"qm-b","created_at":"2026-03-01T00:00:00Z","v":2}`,
	`{"id":"qm-b","created_at":"2026-03-01T00:00:00Z","v":3,"new":"field"}`,
}

func writeHistory(t *testing.T, l *Log) {
	t.Helper()
	if err := os.WriteFile(l.Path, []byte(strings.Join(history, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestCompactKeepsLatestLinesByteForByte(t *testing.T) {
	l := newTestLog(t)
	writeHistory(t, l)
	stats, err := l.Compact()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{history[2], history[3], history[4], strings.TrimSuffix(history[5], "\r"), history[7]}
	if got := lines(readFile(t, l.Path)); !slices.Equal(got, want) {
		t.Fatalf("compacted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if stats.LinesBefore != 8 || stats.LinesAfter != 5 || stats.Kept != 2 {
		t.Fatalf("stats %+v", stats)
	}
	// The materialised state is unchanged by compaction.
	before := Materialize([]byte(strings.Join(history, "\n")), "", "", nil)
	after, _ := l.Load()
	for _, r := range before.Records {
		got, ok := after.Get(r.ID)
		if !ok || string(got.Raw) != strings.TrimSuffix(string(r.Raw), "\r") {
			t.Errorf("%s changed: %s", r.ID, got.Raw)
		}
	}
	// A second compaction changes nothing.
	first := readFile(t, l.Path)
	if _, err := l.Compact(); err != nil {
		t.Fatal(err)
	}
	if readFile(t, l.Path) != first {
		t.Fatal("compacting a compact log changed it")
	}
}

func createdBefore(cutoff string) func(Record) bool {
	return func(r Record) bool {
		out := make([][]byte, 1)
		if jsonline.ObjectFields(r.Raw, []string{"created_at"}, out) != nil {
			return false
		}
		ts, _ := jsonline.String(out[0])
		return ts < cutoff
	}
}

func TestArchiveMovesEveryVersionByteForByte(t *testing.T) {
	l := newTestLog(t)
	writeHistory(t, l)
	stats, err := l.Archive(createdBefore("2026-02-15T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	wantArchive := []string{history[0], history[3], strings.TrimSuffix(history[5], "\r")}
	if got := lines(readFile(t, ArchivePath(l.Path))); !slices.Equal(got, wantArchive) {
		t.Fatalf("archive:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantArchive, "\n"))
	}
	wantLog := []string{history[1], history[2], history[4], history[6], history[7]}
	if got := lines(readFile(t, l.Path)); !slices.Equal(got, wantLog) {
		t.Fatalf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLog, "\n"))
	}
	if stats.Moved != 3 || stats.LinesAfter != 5 {
		t.Fatalf("stats %+v", stats)
	}
	if !strings.HasSuffix(ArchivePath(l.Path), "queen_messages_archive.jsonl") {
		t.Fatalf("archive path %s", ArchivePath(l.Path))
	}
}

// A crash after the archive was appended but before the log was rewritten
// leaves the records in both files. Running archive again must finish the
// job without writing them to the archive twice.
func TestArchiveAfterCrashDoesNotDuplicate(t *testing.T) {
	l := newTestLog(t)
	writeHistory(t, l)
	partial := history[0] + "\n" + history[3] + "\n"
	if err := os.WriteFile(ArchivePath(l.Path), []byte(partial), 0o644); err != nil {
		t.Fatal(err)
	}
	stats, err := l.Archive(createdBefore("2026-02-15T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if stats.AlreadyArchived != 2 || stats.Moved != 1 {
		t.Fatalf("stats %+v", stats)
	}
	if got := lines(readFile(t, ArchivePath(l.Path))); len(got) != 3 {
		t.Fatalf("archive has %d lines, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
	// And nothing left to archive: a third run is a no-op.
	before := readFile(t, l.Path)
	if stats, err := l.Archive(createdBefore("2026-02-15T00:00:00Z")); err != nil || stats.Moved != 0 {
		t.Fatalf("third run: %+v %v", stats, err)
	}
	if readFile(t, l.Path) != before {
		t.Fatal("a no-op archive rewrote the log")
	}
}

func TestRewriteRepairsATornTailFirst(t *testing.T) {
	l := newTestLog(t)
	torn := history[0] + "\n" + history[3] + "\n" + `{"id":"qm-z","bo`
	if err := os.WriteFile(l.Path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Compact(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, l.Path); got != history[3]+"\n" {
		t.Fatalf("log after compaction: %q", got)
	}
	if q := readFile(t, QuarantinePath(l.Path)); !strings.Contains(q, `{"id":"qm-z","bo`) {
		t.Fatalf("torn tail not quarantined: %q", q)
	}
}

func TestRewriteKeepsFileMode(t *testing.T) {
	l := newTestLog(t)
	writeHistory(t, l)
	if err := os.Chmod(l.Path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Compact(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(l.Path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode after compaction: %v %v", info.Mode(), err)
	}
}

// Marks (how far another reader has read the log) move with the lines: to
// the first kept line at or after them.
func TestRewriteMovesMarks(t *testing.T) {
	l := newTestLog(t)
	writeHistory(t, l)
	starts := []int64{0}
	for _, h := range history {
		starts = append(starts, starts[len(starts)-1]+int64(len(h))+1)
	}
	// After compaction the kept lines are history[2], [3], [4], [5] (its CR
	// dropped) and [7].
	kept := []int{2, 3, 4, 5, 7}
	outStart := map[int]int64{}
	var off int64
	for _, k := range kept {
		outStart[k] = off
		off += int64(len(strings.TrimSuffix(history[k], "\r"))) + 1
	}
	tests := []struct {
		mark, want int64
	}{
		{starts[0], 0},             // the start stays the start
		{starts[2], outStart[2]},   // a kept line keeps its place
		{starts[1], outStart[2]},   // a dropped line's mark moves to the next kept line
		{starts[6], outStart[7]},   // past dropped lines
		{starts[8], off},           // the end stays the end
		{starts[3] + 1000000, off}, // beyond the end: the end
	}
	marks := make([]int64, len(tests))
	for i, tt := range tests {
		marks[i] = tt.mark
	}
	moved := compactMoving(t, l, marks)
	for i, tt := range tests {
		if moved[i] != tt.want {
			t.Errorf("mark %d moved to %d, want %d", tt.mark, moved[i], tt.want)
		}
	}
}

// Compact rewrites the log keeping only the current version of each id
// (by l.Versions, else the last line). It only
// deletes superseded lines, never reorders, so a merge with an uncompacted
// copy sees plain deletions. Lines that are not records are kept.
func (l *Log) Compact() (RewriteStats, error) {
	var stats RewriteStats
	err := l.Lock.Do(func(tx *Tx) error {
		var err error
		stats, _, err = tx.Compact(l, nil)
		return err
	})
	return stats, err
}

// Archive moves every version of each record for which old returns true to
// the archive file next to the log. The archive is appended (and synced)
// before the log is rewritten, so a crash between the two leaves the records
// in both files, never in neither; lines already in the archive are not
// appended twice when the archive is run again. old judges each record's
// current version (its Raw and Line; ID is left empty), from several
// goroutines at once.
func (l *Log) Archive(old func(Record) bool) (RewriteStats, error) {
	var stats RewriteStats
	err := l.Lock.Do(func(tx *Tx) error {
		var err error
		stats, _, err = tx.Archive(l, old, nil)
		return err
	})
	return stats, err
}
