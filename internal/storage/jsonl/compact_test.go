package jsonl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// compactInMemory is what compaction wrote before it streamed: the log
// materialised whole, and the current version of each record plus every
// line that is not a record, in place. The streaming compaction must
// write the same bytes.
func compactInMemory(data []byte, v *jsonline.Versions) ([]byte, []int64, []int64) {
	state := Materialize(data, "log", "", v)
	keep := map[int]bool{}
	for _, r := range state.Records {
		keep[r.Line] = true
	}
	for _, p := range state.Problems {
		keep[p.Line] = true
	}
	var marks []int64
	for off := 0; off < len(data); {
		marks = append(marks, int64(off))
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	out, _, moved := selectLines(data, keep, marks)
	return out, marks, moved
}

func TestStreamingCompactionWritesWhatTheInMemoryOneDid(t *testing.T) {
	huge := `{"id":"h","at":"2026-11-01T00:00:00Z","blob":"` + strings.Repeat("x", 9<<20) + `"}`
	cases := map[string]string{
		"plain":            "{\"id\":\"a\",\"v\":1}\n{\"id\":\"b\",\"v\":1}\n{\"id\":\"a\",\"v\":2}\n",
		"crlf and bom":     "\xef\xbb\xbf{\"id\":\"a\",\"v\":1}\r\n{\"id\":\"a\",\"v\":2}\r\n{\"id\":\"b\"}\r\n",
		"bad lines kept":   "{\"id\":\"a\"}\nnot json\n<<<<<<< ours\n{\"no_id\":1}\n{\"id\":\"\"}\n{\"id\":\"a\",\"v\":2}\n=======\n",
		"blank lines":      "\n{\"id\":\"a\"}\n   \n{\"id\":\"a\",\"v\":2}\n\n",
		"current not last": "{\"id\":\"a\",\"at\":\"2026-11-02T00:00:00Z\"}\n{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\"}\n",
		"equal times":      "{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\",\"v\":\"b\"}\n{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\",\"v\":\"a\"}\n{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\",\"v\":\"c\"}\n",
		"no version time":  "{\"id\":\"a\"}\n{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\"}\n{\"id\":\"a\"}\n",
		"huge line":        huge + "\n{\"id\":\"h\",\"at\":\"2026-10-01T00:00:00Z\"}\n" + huge + "\n",
		"nothing to drop":  "{\"id\":\"a\"}\n{\"id\":\"b\"}\n",
		"escaped ids":      "{\"id\":\"a\",\"v\":1}\n{\"id\":\"\\u0061\",\"v\":2}\n{\"id\":\"a\\\"\",\"v\":3}\n{\"id\":\"a\\u0022\",\"v\":4}\n",

		"no final newline": "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"a\",\"v\":2}",
		"some crlf lines":  "{\"id\":\"a\"}\n{\"id\":\"b\"}\r\n{\"id\":\"c\"}\n{\"id\":\"d\"}\n{\"id\":\"a\",\"v\":2}\r\n{\"id\":\"e\"}\n",
	}
	// Under the race detector (CI's -race run) a tenth of the lines, with
	// as many versions an id: the plain run compacts them all.
	lines, ids := 20000, 3000
	if raceEnabled {
		lines, ids = 2000, 300
	}
	var many strings.Builder
	for i := range lines {
		fmt.Fprintf(&many, "{\"id\":\"r%d\",\"at\":\"2026-11-01T%02d:%02d:00Z\",\"n\":%d}\n", i%ids, i%24, i%60, i)
	}
	cases["many versions"] = many.String()
	defer func(size int, window int64) { planBlockSize, rewriteWindowSize = size, window }(planBlockSize, rewriteWindowSize)
	for name, content := range cases {
		for _, v := range []*jsonline.Versions{nil, testVersions} {
			for _, block := range []int{1 << 20, 100} { // blocks and windows of many lines, and of a few
				t.Run(fmt.Sprintf("%s/versions=%v/block=%d", name, v != nil, block), func(t *testing.T) {
					planBlockSize, rewriteWindowSize = block, int64(block)
					compactLikeInMemory(t, content, v)
				})
			}
		}
	}
}

// compactLikeInMemory compacts content and compares the file and marks
// with what the in-memory compaction gives.
func compactLikeInMemory(t *testing.T, content string, v *jsonline.Versions) {
	t.Helper()
	dir := t.TempDir()
	l := &Log{Path: filepath.Join(dir, "log.jsonl"), Lock: &Lock{Path: filepath.Join(dir, "lock")}, Versions: v, NoSync: true}
	if err := os.WriteFile(l.Path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	// A rewrite first repairs an unterminated last line, as an append does.
	content = repairedTail(content)
	want, marks, wantMoved := compactInMemory([]byte(content), v)
	moved := compactMoving(t, l, marks)
	got, _ := os.ReadFile(l.Path)
	if bytes.Count(want, []byte{'\n'}) == nonBlankLines(content) {
		if string(got) != content {
			t.Fatalf("nothing was superseded, and the file changed:\n%.300q", got)
		}
		return // left alone, as before
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("streaming compaction wrote\n%.300q\nthe in-memory one\n%.300q", got, want)
	}
	if fmt.Sprint(moved) != fmt.Sprint(wantMoved) {
		t.Fatalf("marks moved to %v, want %v", moved, wantMoved)
	}
}

// repairedTail is content after Log.repairTail: an unterminated last line
// that is blank or a whole JSON object gets its newline; any other is set
// aside.
func repairedTail(content string) string {
	if content == "" || strings.HasSuffix(content, "\n") {
		return content
	}
	start := strings.LastIndexByte(content, '\n') + 1
	raw, _ := jsonline.TrimLine([]byte(content[start:]), start == 0)
	if tail := bytes.TrimSpace(raw); len(tail) == 0 || (tail[0] == '{' && jsonline.Valid(tail) == nil) {
		return content + "\n"
	}
	return content[:start]
}

// compactMoving compacts l under its lock and returns where marks moved.
func compactMoving(t *testing.T, l *Log, marks []int64) []int64 {
	t.Helper()
	var moved []int64
	err := l.Lock.Do(func(tx *Tx) error {
		var err error
		_, moved, err = tx.Compact(l, marks)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return moved
}

func nonBlankLines(content string) int {
	n := 0
	for l := range jsonline.Lines([]byte(content)) {
		if !l.Blank() {
			n++
		}
	}
	return n
}

// Archive writes the same log, archive, stats and marks as the in-memory
// archive did, including a second run after a crash between its steps
// (the archive already holds some lines).
func TestStreamingArchiveDoesWhatTheInMemoryOneDid(t *testing.T) {
	content := "\xef\xbb\xbf{\"id\":\"a\",\"at\":\"2026-10-01T00:00:00Z\"}\r\n" +
		"{\"id\":\"b\",\"at\":\"2026-11-01T00:00:00Z\"}\n\nnot json\n" +
		"{\"id\":\"a\",\"at\":\"2026-10-02T00:00:00Z\"}\n" +
		"{\"id\":\"c\",\"at\":\"2026-09-01T00:00:00Z\"}\n" +
		"{\"id\":\"b\",\"at\":\"2026-09-01T00:00:00Z\"}\n" + // stale: b's current version is newer
		"{\"id\":\"d\",\"at\":\"2026-12-01T00:00:00Z\"}\n"
	oldBefore := func(r Record) bool { // current version before November
		vals := make([][]byte, 1)
		if jsonline.ObjectFields(r.Raw, []string{"at"}, vals) != nil {
			return false
		}
		s, _ := jsonline.String(vals[0])
		return s < "2026-11"
	}
	defer func(size int, window int64) { planBlockSize, rewriteWindowSize = size, window }(planBlockSize, rewriteWindowSize)
	for i, archived := range []string{"", "{\"id\":\"a\",\"at\":\"2026-10-01T00:00:00Z\"}\n", "", "{\"id\":\"a\",\"at\":\"2026-10-01T00:00:00Z\"}\n"} {
		// The last two runs read the log in blocks and windows of a few lines.
		planBlockSize, rewriteWindowSize = 1<<20, 1<<20
		if i >= 2 {
			planBlockSize, rewriteWindowSize = 40, 40
		}
		run := func(archive func(*Log, func(Record) bool, []int64) (RewriteStats, []int64, error)) (string, string, RewriteStats, []int64) {
			dir := t.TempDir()
			l := &Log{Path: filepath.Join(dir, "log.jsonl"), Lock: &Lock{Path: filepath.Join(dir, "lock")}, Versions: testVersions, NoSync: true}
			if err := os.WriteFile(l.Path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if archived != "" {
				if err := os.WriteFile(ArchivePath(l.Path), []byte(archived), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, marks, _ := compactInMemory([]byte(content), nil)
			stats, moved, err := archive(l, oldBefore, marks)
			if err != nil {
				t.Fatal(err)
			}
			logData, _ := os.ReadFile(l.Path)
			archiveData, _ := os.ReadFile(ArchivePath(l.Path))
			return string(logData), string(archiveData), stats, moved
		}
		gotLog, gotArchive, gotStats, gotMarks := run(func(l *Log, old func(Record) bool, marks []int64) (RewriteStats, []int64, error) {
			return (&Tx{}).Archive(l, old, marks)
		})
		wantLog, wantArchive, wantStats, wantMarks := run(archiveInMemory)
		if gotLog != wantLog || gotArchive != wantArchive || gotStats != wantStats || fmt.Sprint(gotMarks) != fmt.Sprint(wantMarks) {
			t.Errorf("archive (already archived %q):\nlog %q\nwant %q\narchive %q\nwant %q\nstats %+v want %+v\nmarks %v want %v",
				archived, gotLog, wantLog, gotArchive, wantArchive, gotStats, wantStats, gotMarks, wantMarks)
		}
		if !strings.Contains(gotArchive, `"id":"c"`) || strings.Contains(gotLog, `"id":"c"`) {
			t.Errorf("c (current version in September) was not moved:\nlog %q\narchive %q", gotLog, gotArchive)
		}
	}
}

// FuzzCompactMatchesInMemory builds a log from the fuzzer's bytes, two a
// line (an id and a time among a few, and what else the line is: CRLF, a
// blank line, a broken line, a conflict marker, a BOM, an escaped id, no
// final newline), and compacts it through small blocks and windows: the
// file and the marks must be what the in-memory compaction gives.
func FuzzCompactMatchesInMemory(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 2})
	f.Add([]byte{4, 0, 4, 9, 2, 0x30, 0, 0x50, 3, 0x70, 1, 0x90, 5, 0xb0, 0, 0xd0, 1, 0xf0})
	f.Fuzz(func(t *testing.T, spec []byte) {
		if len(spec) > 400 {
			return
		}
		var b strings.Builder
		for i := 0; i+1 < len(spec); i += 2 {
			id, minute, kind := spec[i]%5, spec[i+1]%4, spec[i+1]>>2%8
			line := fmt.Sprintf(`{"id":"r%d","at":"2026-11-01T10:%02d:00Z","n":%d}`, id, minute, i)
			switch kind {
			case 1:
				line += "\r"
			case 2:
				line = ""
			case 3:
				line = `{"id":"r` + fmt.Sprint(id) + `","at":` // broken
			case 4:
				line = "<<<<<<< ours"
			case 5:
				if i == 0 {
					line = "\xef\xbb\xbf" + line
				}
			case 6:
				line = fmt.Sprintf(`{"id":"\u0072%d","at":"2026-11-01T10:%02d:00Z","n":%d}`, id, minute, i)
			}
			b.WriteString(line)
			if i+2 < len(spec) || kind != 7 {
				b.WriteByte('\n')
			}
		}
		defer func(size int, window int64) { planBlockSize, rewriteWindowSize = size, window }(planBlockSize, rewriteWindowSize)
		planBlockSize, rewriteWindowSize = 64, 64
		for _, v := range []*jsonline.Versions{nil, testVersions} {
			compactLikeInMemory(t, b.String(), v)
			archiveLikeInMemory(t, b.String(), v)
		}
	})
}

// archiveLikeInMemory archives content (the records whose current version
// is of minute 0 or 1) as the streaming archive and as the in-memory one,
// and compares the logs, archives and stats they leave.
func archiveLikeInMemory(t *testing.T, content string, v *jsonline.Versions) {
	t.Helper()
	old := func(r Record) bool {
		vals := make([][]byte, 1)
		if jsonline.ObjectFields(r.Raw, []string{"at"}, vals) != nil {
			return false
		}
		at, _ := jsonline.String(vals[0])
		return at < "2026-11-01T10:02"
	}
	run := func(archive func(*Log, func(Record) bool, []int64) (RewriteStats, []int64, error)) (string, string, RewriteStats) {
		dir := t.TempDir()
		l := &Log{Path: filepath.Join(dir, "log.jsonl"), Lock: &Lock{Path: filepath.Join(dir, "lock")}, Versions: v, NoSync: true}
		if err := os.WriteFile(l.Path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		stats, _, err := archive(l, old, nil)
		if err != nil {
			t.Fatal(err)
		}
		logData, _ := os.ReadFile(l.Path)
		archived, _ := os.ReadFile(ArchivePath(l.Path))
		return string(logData), string(archived), stats
	}
	gotLog, gotArchive, gotStats := run(func(l *Log, old func(Record) bool, marks []int64) (RewriteStats, []int64, error) {
		return (&Tx{}).Archive(l, old, marks)
	})
	wantLog, wantArchive, wantStats := run(archiveInMemory)
	if gotLog != wantLog || gotArchive != wantArchive || gotStats != wantStats {
		t.Errorf("archive of %q:\nlog %q\nwant %q\narchive %q\nwant %q\nstats %+v want %+v",
			content, gotLog, wantLog, gotArchive, wantArchive, gotStats, wantStats)
	}
}
