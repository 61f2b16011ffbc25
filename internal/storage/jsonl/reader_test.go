package jsonl

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// readFixture returns a fixture's bytes, gunzipping *.gz fixtures (the 2 MiB
// line is stored compressed).
func readFixture(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// goldenState is what a golden file records of a materialised fixture.
type goldenState struct {
	Lines    int            `json:"lines"`
	Records  []goldenRecord `json:"records"`
	Problems []string       `json:"problems"`
}

type goldenRecord struct {
	ID       string `json:"id"`
	Line     int    `json:"line"`
	Versions int    `json:"versions"`
	Bytes    int    `json:"bytes"`
	// Raw is the latest line, or its SHA-256 when it is long.
	Raw string `json:"raw"`
}

func describe(s *State) goldenState {
	g := goldenState{Lines: s.Lines, Records: []goldenRecord{}, Problems: []string{}}
	for _, r := range s.Records {
		raw := string(r.Raw)
		if len(raw) > 200 {
			sum := sha256.Sum256(r.Raw)
			raw = "sha256:" + hex.EncodeToString(sum[:])
		}
		g.Records = append(g.Records, goldenRecord{ID: r.ID, Line: r.Line, Versions: r.Versions, Bytes: len(r.Raw), Raw: raw})
	}
	for _, p := range s.Problems {
		g.Problems = append(g.Problems, filepath.Base(p.File)+":"+strings.TrimPrefix(p.Error(), p.File+":"))
	}
	return g
}

func TestReaderFixtures(t *testing.T) {
	fixtures, err := filepath.Glob("testdata/reader/*.jsonl*")
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range fixtures {
		if strings.HasSuffix(path, ".golden.json") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			data := readFixture(t, path)
			state := Materialize(data, filepath.Base(path), "", nil)
			checkGolden(t, strings.TrimSuffix(path, ".gz")+".golden.json", describe(state))
			checkReaderAgrees(t, data)
		})
	}
}

// checkReaderAgrees makes sure the streaming Reader and the in-memory Lines
// see exactly the same lines.
func checkReaderAgrees(t *testing.T, data []byte) {
	t.Helper()
	var want []jsonline.Line
	for l := range jsonline.Lines(data) {
		l.Raw = bytes.Clone(l.Raw)
		want = append(want, l)
	}
	r := jsonline.NewReader(bytes.NewReader(data))
	for i := 0; ; i++ {
		got, err := r.Next()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Fatalf("Reader stopped after %d lines, Lines gave %d", i, len(want))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) || got.No != want[i].No || got.Terminated != want[i].Terminated || !bytes.Equal(got.Raw, want[i].Raw) {
			t.Fatalf("line %d: Reader and Lines disagree", i+1)
		}
	}
}

func checkGolden(t *testing.T, path string, got any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("%s differs from the result:\n%s\n(run go test -update if the change is intended)", path, b)
	}
}

func TestLoadMissingFileIsEmpty(t *testing.T) {
	s, err := Load(filepath.Join(t.TempDir(), "absent.jsonl"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 0 || s.Lines != 0 || len(s.Problems) != 0 {
		t.Fatalf("missing file: %+v", describe(s))
	}
}

func TestLoadUnreadableFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	// A directory where a file should be cannot be read as a log.
	if _, err := Load(dir, "", nil); err == nil {
		t.Fatal("Load of a directory succeeded")
	}
}

func TestHugeLineIsOneRecord(t *testing.T) {
	data := readFixture(t, "testdata/reader/huge-line.jsonl.gz")
	s := Materialize(data, "huge", "", nil)
	r, ok := s.Get("qm-big")
	if !ok || len(r.Raw) < 2<<20 || r.Line != 2 {
		t.Fatalf("2 MiB line: got ok=%v len=%d line=%d", ok, len(r.Raw), r.Line)
	}
}
