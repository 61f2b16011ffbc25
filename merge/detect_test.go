package merge

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
)

// TestDetectStoreLogs checks that every store kind names a merge format
// this package knows, that a log of the kind is merged by it wherever it
// sits, and that the other queen_*.jsonl (archives, renamed copies) are
// merged as QueenBee stores whatever their content.
func TestDetectStoreLogs(t *testing.T) {
	for _, k := range records.Kinds {
		f, err := ParseFormat(k.Merge)
		if err != nil || f == Auto {
			t.Errorf("%s: merge strategy %q is not a format of this package (%v)", k.Name, k.Merge, err)
			continue
		}
		for _, p := range []string{k.File, ".beads/" + k.File, "sub/dir/" + k.File, `win\dir\` + k.File} {
			if got := Detect(p, []byte("not json\n")); got != f {
				t.Errorf("Detect(%q) = %s, want %s", p, got, f)
			}
		}
	}
	for _, p := range []string{".beads/queen_messages_archive.jsonl", "queen_assignments_archive.jsonl", ".beads/queen_old.jsonl"} {
		if got := Detect(p, []byte("not json\n")); got != Queen {
			t.Errorf("Detect(%q) = %s, want %s", p, got, Queen)
		}
	}
	for _, p := range []string{".beads/queen_messages.json", "queen_messages.jsonl.orig", ".work/messages.jsonl"} {
		if got := Detect(p, []byte(`{"id":"qm-1"}`+"\n")); got == Queen {
			t.Errorf("Detect(%q) = %s; only queen_*.jsonl are QueenBee stores", p, got)
		}
	}
}

// A Git LFS pointer under merge=queen (git lfs track before git queen init)
// is merged as text, whatever the name says: as lines of a store or a
// snapshot, two sides' pointers became one with two oids, and no conflict.
func TestDetectLFSPointerIsText(t *testing.T) {
	pointer := func(n int) []byte {
		return fmt.Appendf(nil, "version https://git-lfs.github.com/spec/v1\noid sha256:%064d\nsize %d\n", n, n)
	}
	for _, p := range []string{".beads/issues.jsonl", ".beads/queen_messages.jsonl", ".work/events.jsonl", "log.jsonl"} {
		if got := Detect(p, pointer(1), pointer(2), pointer(3)); got != Text {
			t.Errorf("Detect(%q) of LFS pointers = %s, want text", p, got)
		}
		res, err := Merge(pointer(1), pointer(2), pointer(3), p, Options{})
		if err != nil || !res.Conflict {
			t.Errorf("%s: merging LFS pointers: conflict %v, err %v:\n%s", p, res.Conflict, err, res.Bytes())
		}
	}
}

// Each VerMAS file detected as a snapshot is keyed as vermasSnapshots
// says, and only in .work/: the two rules read one table.
func TestVerMASSnapshotsAreKeyedAsDetected(t *testing.T) {
	for name, key := range vermasSnapshots {
		for _, p := range []string{".work/" + name, "sub/.work/" + name, `sub\.work\` + name} {
			if got := Detect(p); got != Snapshot {
				t.Errorf("Detect(%q) = %s, want snapshot", p, got)
			}
			if got := snapshotKey(p); got != key {
				t.Errorf("snapshotKey(%q) = %q, want %q", p, got, key)
			}
		}
		if got := snapshotKey("elsewhere/" + name); got != "id" {
			t.Errorf("snapshotKey(%q) = %q outside .work/, want id", "elsewhere/"+name, got)
		}
	}
}

// A beads snapshot is issues.jsonl or beads.jsonl in .beads/, as validate
// reads them. A file of that name elsewhere may be any log (versions of
// one id on many lines), which a snapshot merge would cut to one line per
// id: it is detected by content, and its lines are unioned.
func TestDetectBeadsSnapshotOnlyInBeadsDir(t *testing.T) {
	line := []byte(`{"id":"x-1","status":"open"}` + "\n")
	for p, want := range map[string]Format{
		".beads/issues.jsonl":     Snapshot,
		"sub/.beads/beads.jsonl":  Snapshot,
		`win\.beads\issues.jsonl`: Snapshot,
		"issues.jsonl":            Lines,
		"logs/issues.jsonl":       Lines,
		"beads.jsonl":             Lines,
	} {
		if got := Detect(p, line, line, line); got != want {
			t.Errorf("Detect(%q) = %s, want %s", p, got, want)
		}
	}
	base := []byte(`{"id":"x-1","v":1}` + "\n")
	ours := append(slices.Clone(base), `{"id":"x-1","v":2}`+"\n"...)
	theirs := append(slices.Clone(base), `{"id":"x-1","v":3}`+"\n"...)
	res, err := Merge(base, ours, theirs, "logs/issues.jsonl", Options{})
	if err != nil || res.Conflict || strings.Count(string(res.Bytes()), `"id":"x-1"`) != 3 {
		t.Errorf("a log named issues.jsonl outside .beads lost versions (conflict %v, err %v):\n%s", res.Conflict, err, res.Bytes())
	}
}
