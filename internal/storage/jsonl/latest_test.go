package jsonl

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// checkSelectAgrees compares Select (no filters) with Materialize: the same
// latest line for every id, and the same problems.
func checkSelectAgrees(t *testing.T, name string, data []byte) {
	t.Helper()
	state := Materialize(data, name, "", nil)
	entries, problems := Select(data, name, Query{})
	if len(entries) != state.Len() {
		t.Fatalf("%s: Select found %d ids, Materialize %d", name, len(entries), state.Len())
	}
	for i, e := range entries {
		r, ok := state.Get(e.ID)
		if !ok || string(r.Raw) != string(e.Raw) || r.Line != e.Line {
			t.Fatalf("%s: %s: Select line %d %q, Materialize line %d %q", name, e.ID, e.Line, e.Raw, r.Line, r.Raw)
		}
		if i > 0 && entries[i-1].Line >= e.Line {
			t.Fatalf("%s: entries not in file order", name)
		}
	}
	if !slices.Equal(problems, state.Problems) {
		t.Fatalf("%s: problems differ:\n%v\n%v", name, problems, state.Problems)
	}
}

func TestSelectAgreesWithMaterializeOnFixtures(t *testing.T) {
	fixtures, _ := filepath.Glob("testdata/reader/*.jsonl*")
	for _, path := range fixtures {
		if !strings.HasSuffix(path, ".golden.json") {
			checkSelectAgrees(t, filepath.Base(path), readFixture(t, path))
		}
	}
}

func TestSelectAgreesWithMaterializeOnRandomLogs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	lines := []string{`{"id":"a","v":1}`, `{"id":"b","v":1}`, `{"id":"a","v":2}`, `{"id":"c"}`, `broken`, ``, `  `,
		"{\"id\":\"b\",\"v\":2}\r", `{"no":"id"}`, `{"id":"d","to":"x"}`}
	for i := range 3000 {
		var sb strings.Builder
		if rng.IntN(5) == 0 {
			sb.Write([]byte{0xEF, 0xBB, 0xBF})
		}
		for range rng.IntN(12) {
			sb.WriteString(lines[rng.IntN(len(lines))])
			sb.WriteByte('\n')
		}
		data := sb.String()
		if rng.IntN(3) == 0 {
			data = strings.TrimSuffix(data, "\n")
		}
		checkSelectAgrees(t, fmt.Sprint("random-", i), []byte(data))
	}
}

func TestSelectFilters(t *testing.T) {
	data := []byte(`{"id":"m1","to":"ann","read":false}
{"id":"m2","to":"bob","read":false}
{"id":"m1","to":"ann","read":true}
{"id":"m3","to":"ann","read":false}
{"id":"m2","to":"bob","read":true}
`)
	q := Query{
		Fields: []string{"to", "read"},
		Static: func(f [][]byte) bool { return string(f[0]) == `"ann"` },
		Keep:   func(f [][]byte) bool { return string(f[1]) == "false" },
	}
	entries, problems := Select(data, "m", q)
	if len(problems) != 0 || len(entries) != 1 || entries[0].ID != "m3" || string(entries[0].Fields[0]) != `"ann"` {
		t.Fatalf("entries %+v, problems %v", entries, problems)
	}
	// Keep sees the latest version only: m1 is read, so it is not returned
	// even though an older version was unread.
	q.Keep = func(f [][]byte) bool { return string(f[1]) == "true" }
	entries, _ = Select(data, "m", q)
	if len(entries) != 1 || entries[0].ID != "m1" || entries[0].Line != 3 {
		t.Fatalf("entries %+v", entries)
	}
}

func TestSelectFile(t *testing.T) {
	dir := t.TempDir()
	if e, p, err := SelectFile(filepath.Join(dir, "missing.jsonl"), Query{}); err != nil || e != nil || p != nil {
		t.Fatalf("missing file: %v %v %v", e, p, err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	if e, _, err := SelectFile(empty, Query{}); err != nil || e != nil {
		t.Fatalf("empty file: %v %v", e, err)
	}
	if _, _, err := SelectFile(dir, Query{}); err == nil {
		t.Fatal("selecting from a directory succeeded")
	}
}

// A writer may truncate a torn tail while a reader has the file mapped. The
// reader must not crash: it reads the file again.
func TestSelectFileSurvivesTruncationUnderTheMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, `{"id":"r%d","pad":"%s"}`+"\n", i, strings.Repeat("x", 50))
	}
	os.WriteFile(path, []byte(sb.String()), 0o644)
	truncated := false
	q := Query{Keep: func([][]byte) bool {
		if !truncated {
			truncated = true
			if err := os.Truncate(path, 0); err != nil {
				t.Error(err)
			}
		}
		return true
	}}
	entries, _, err := SelectFile(path, q)
	if err != nil {
		t.Fatal(err)
	}
	if !truncated || len(entries) != 0 {
		t.Fatalf("after truncation: %d entries (the re-read file is empty)", len(entries))
	}
}

// Only a fault of the mapping sends the file to be read again: any other
// panic of the reader is a bug, and goes on rather than being hidden.
func TestReadMappedLetsABugPanic(t *testing.T) {
	if !mapfile.Mapped {
		t.Skip("files are read, not mapped, here")
	}
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	readAgain := false
	defer func() {
		if r := recover(); r != "bug" {
			t.Errorf("recovered %v, want the reader's panic", r)
		}
		if readAgain {
			t.Error("the file was read again after the reader's panic")
		}
	}()
	_ = readMapped(path, func([]byte, os.FileInfo) { panic("bug") }, func() error { readAgain = true; return nil })
}
