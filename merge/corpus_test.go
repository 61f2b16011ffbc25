package merge

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// corpusDir finds ../shared/corpus beside the module root, where CI puts
// it, or returns "".
func corpusDir(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	c := filepath.Join(filepath.Dir(dir), "shared", "corpus")
	if _, err := os.Stat(filepath.Join(c, "beads-merges.tar.xz")); err != nil {
		return ""
	}
	return c
}

// corpusCase is one real merge of beads issues.jsonl.
type corpusCase struct {
	name                         string
	base, ours, theirs, recorded []byte
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	c := corpusDir(t)
	if c == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("corpus not found: ../shared/corpus/beads-merges.tar.xz beside the module root; CI must run the 94 real merges")
		}
		t.Skip("corpus not found: ../shared/corpus/beads-merges.tar.xz beside the module root (CI has it)")
	}
	dir := t.TempDir()
	cmd := exec.Command("tar", "xJf", filepath.Join(c, "beads-merges.tar.xz"), "-C", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("unpack the corpus: %v\n%s", err, out)
	}
	root := filepath.Join(dir, "beads-merges")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	for _, e := range entries {
		read := func(name string) []byte {
			b, err := os.ReadFile(filepath.Join(root, e.Name(), name))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		cases = append(cases, corpusCase{e.Name(), read("base.jsonl"), read("ours.jsonl"), read("theirs.jsonl"), read("recorded.jsonl")})
	}
	if len(cases) != 94 {
		t.Fatalf("the corpus has %d merges, want 94", len(cases))
	}
	return cases
}

// TestCorpusSnapshotMerges runs the snapshot strategy over the 94 real
// beads merges and checks every property from base, ours and theirs; it
// logs how the resolutions that were committed compare (go test -v).
func TestCorpusSnapshotMerges(t *testing.T) {
	cases := loadCorpus(t)
	if testing.Short() {
		// CI's run under the race detector: a third of the merges, every
		// kind of record among them; all 94 run in go test ./...
		cases = everyThird(cases)
	}
	var total corpusStats
	for _, c := range cases {
		res, err := Merge(c.base, c.ours, c.theirs, ".beads/issues.jsonl", Options{})
		if err != nil || res.Format != Snapshot || res.Conflict {
			t.Fatalf("%s: format %s, conflict %v, err %v", c.name, res.Format, res.Conflict, err)
		}
		if err := checkSnapshot(c.base, c.ours, c.theirs, res.Bytes()); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if err := checkValid(res.Bytes()); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		swapped, _ := Merge(c.base, c.theirs, c.ours, ".beads/issues.jsonl", Options{})
		if !bytes.Equal(swapped.Bytes(), res.Bytes()) {
			t.Errorf("%s: swapping ours and theirs changes the result", c.name)
		}
		for _, x := range [][]byte{c.ours, c.theirs} {
			if same, _ := Merge(x, x, x, ".beads/issues.jsonl", Options{}); !bytes.Equal(same.Bytes(), x) {
				t.Errorf("%s: merge(X,X,X) != X", c.name)
			}
			if one, _ := Merge(c.base, x, c.base, ".beads/issues.jsonl", Options{}); !bytes.Equal(one.Bytes(), x) {
				t.Errorf("%s: merge(O,A,O) != A", c.name)
			}
		}
		s := compareRecorded(c, res.Bytes())
		total.add(s)
		if s.differs {
			t.Logf("%s: recorded resolution: %+v", c.name, s)
		}
	}
	t.Logf("%d real merges: recorded resolutions whose records differ from the driver's: %d; in them: %d records lost, "+
		"%d deleted records resurrected, %d one-sided changes overwritten by the other side's version, "+
		"%d lines repeating an id, %d conflict-marker lines",
		len(cases), total.differing, total.lost, total.resurrected, total.stale, total.dupLines, total.markers)
}

// corpusStats counts what a committed resolution got wrong, judged by the
// rules every reading of the inputs agrees on.
type corpusStats struct {
	differs                                                bool
	differing, lost, resurrected, stale, dupLines, markers int
}

func (s *corpusStats) add(o corpusStats) {
	if o.differs {
		s.differing++
	}
	s.lost += o.lost
	s.resurrected += o.resurrected
	s.stale += o.stale
	s.dupLines += o.dupLines
	s.markers += o.markers
}

func compareRecorded(c corpusCase, ours []byte) corpusStats {
	b, o, t, r := parseSnapshot(c.base, "id"), parseSnapshot(c.ours, "id"), parseSnapshot(c.theirs, "id"), parseSnapshot(c.recorded, "id")
	s := corpusStats{dupLines: len(r.dups), markers: r.markers}
	mine := parseSnapshot(ours, "id")
	s.differs = len(mine.recs) != len(r.recs) || len(r.dups) > 0 || r.markers > 0
	for id, v := range mine.recs {
		if !bytes.Equal(r.recs[id], v) {
			s.differs = true
		}
	}
	ids := map[string]bool{}
	for _, x := range []snapshot{b, o, t} {
		for id := range x.recs {
			ids[id] = true
		}
	}
	for id := range ids {
		bv, ov, tv, rv := b.recs[id], o.recs[id], t.recs[id], r.recs[id]
		var want []byte
		switch {
		case bytes.Equal(ov, tv):
			want = ov
		case bytes.Equal(ov, bv):
			want = tv
		case bytes.Equal(tv, bv):
			want = ov
		default:
			if rv == nil {
				s.lost++ // changed on both sides, or deleted on one and changed on the other
			}
			continue
		}
		switch {
		case want == nil && rv != nil:
			s.resurrected++
		case want != nil && rv == nil:
			s.lost++
		case want != nil && !bytes.Equal(rv, want) && (bytes.Equal(rv, ov) || bytes.Equal(rv, tv) || bytes.Equal(rv, bv)):
			s.stale++
		}
	}
	return s
}

// everyThird is cases[0], cases[3], cases[6] ...
func everyThird(cases []corpusCase) []corpusCase {
	var some []corpusCase
	for i := 0; i < len(cases); i += 3 {
		some = append(some, cases[i])
	}
	return some
}
