package jsonl

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A lean selection gives the entries a whole one gives, and LoadRaw reads
// each one's line, including after appends that the cache reads
// incrementally (an appended version with the same time as a cached one
// wins by its bytes, as always).
func TestLeanSelectionLoadsTheLinesItSelected(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	lines := "\xef\xbb\xbf" + `{"id":"a","to":"ann","at":"2026-11-01T00:00:00Z","body":"first"}` + "\r\n" +
		`{"id":"b","to":"bob","at":"2026-11-01T00:00:00Z"}` + "\n" +
		`{"id":"c","to":"ann","at":"2026-11-02T00:00:00Z","body":"c"}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	q := Query{Fields: []string{"to"}, Versions: testVersions,
		Static: func(f [][]byte) bool { return bytes.Equal(f[0], []byte(`"ann"`)) }}
	lean := q
	lean.Lean = true
	check := func(step string) {
		t.Helper()
		want, _, err := SelectFile(path, q)
		if err != nil {
			t.Fatal(err)
		}
		for run := range 2 { // builds or updates the cache, then reads it
			got, _, err := SelectFileCached(path, lean, filepath.Join(dir, "cache"))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s, run %d: %d entries, want %d", step, run, len(got), len(want))
			}
			for i := range got {
				raw, err := LoadRaw(got[i], lean)
				if err != nil || !bytes.Equal(raw, want[i].Raw) || got[i].ID != want[i].ID || !slices.EqualFunc(got[i].Fields, want[i].Fields, bytes.Equal) {
					t.Fatalf("%s, run %d: entry %d: %s %q (%v), want %s %q", step, run, i, got[i].ID, raw, err, want[i].ID, want[i].Raw)
				}
			}
		}
	}
	check("first")
	appendTo := func(line string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line + "\n")
		f.Close()
	}
	appendTo(`{"id":"a","to":"ann","at":"2026-11-01T00:00:00Z","body":"same time, larger bytes"}`)
	check("an appended version with the same time")
	appendTo(`{"id":"c","to":"ann","at":"2026-10-01T00:00:00Z","body":"older"}`)
	check("an appended stale version")

	// The log rewritten under a lean entry: LoadRaw says so.
	got, _, _ := SelectFileCached(path, lean, filepath.Join(dir, "cache"))
	if err := os.WriteFile(path, []byte(`{"id":"z","to":"ann"}`+"\n"+lines), 0o644); err != nil {
		t.Fatal(err)
	}
	leanOnes := 0
	for _, e := range got {
		if !e.Lean {
			continue
		}
		leanOnes++
		if _, err := LoadRaw(e, lean); !errors.Is(err, ErrMoved) {
			t.Errorf("entry %s after a rewrite: %v, want ErrMoved", e.ID, err)
		}
	}
	if leanOnes == 0 {
		t.Fatal("no entry came from the lean cache")
	}
}
