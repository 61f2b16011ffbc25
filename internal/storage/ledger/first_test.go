package ledger

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// A pusher places a version where they like: here carl's is appended to
// November's first chunk, full before ann's version went into the second,
// then ann's is taken out of the ledger and put back. What brought each
// version first is the history, whatever the paths and the times say.
func TestPrecedesFollowsTheHistoryNotThePaths(t *testing.T) {
	l, _ := open(t)
	c0, c1, ann, carl, filler := annsFirst(t, l)
	if !bytes.Contains(l.chunkAt(t, c1, second), ann) {
		t.Fatalf("ann's version is not in %s", second)
	}
	c2 := editChunk(t, l, c1, first, func(data []byte) []byte { return append(data, append(carl, '\n')...) })
	c3 := editChunk(t, l, c2, second, func(data []byte) []byte { return bytes.ReplaceAll(data, append(ann, '\n'), nil) })
	c4 := editChunk(t, l, c3, second, func(data []byte) []byte { return append(data, append(ann, '\n')...) })
	const carls, anns, fillers = 0, 1, 2
	precedes, err := l.Precedes(c4, []Placed{{first, carl, carls}, {second, ann, anns}, {first, filler, fillers}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p, q int
		want bool
	}{{anns, carls, true}, {carls, anns, false}, {fillers, anns, true}, {fillers, carls, true}, {anns, fillers, false}, {anns, anns, false}} {
		if got := precedes(c.p, c.q); got != c.want {
			t.Errorf("group %d precedes group %d: %v, want %v", c.p, c.q, got, c.want)
		}
	}

	// Carl brings his version in a history of its own, on the commit
	// before ann's, and merges it in as the first parent: neither
	// version precedes the other.
	side := editChunk(t, l, c0, first, func(data []byte) []byte { return append(data, append(carl, '\n')...) })
	root, err := l.TreeOf(c2)
	if err != nil {
		t.Fatal(err)
	}
	merge, err := l.CommitTree(root, []gitobject.ID{side, c1}, sig, "merge")
	if err != nil {
		t.Fatal(err)
	}
	precedes, err = l.Precedes(merge, []Placed{{first, carl, carls}, {second, ann, anns}})
	if err != nil {
		t.Fatal(err)
	}
	if precedes(anns, carls) || precedes(carls, anns) {
		t.Errorf("a version merged in from a history of its own: ann's precedes carl's %v, carl's ann's %v; want neither",
			precedes(anns, carls), precedes(carls, anns))
	}
}

// The chunks of November the ledger holds after annsFirst's commits.
const first, second = "messages/2026-11/000/00.jsonl", "messages/2026-11/000/01.jsonl"

// annsFirst records 700 messages (past the first chunk), then ann's
// version of qm-1 on them, in the second: those commits, ann's version,
// carl's (not recorded) and a filler's.
func annsFirst(t *testing.T, l *Ledger) (c0, c1 gitobject.ID, ann, carl, filler []byte) {
	t.Helper()
	nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	var fillers [][]byte
	for i := range 700 {
		fillers = append(fillers, msg(fmt.Sprintf("qm-f%d", i), nov, strings.Repeat("x", 60)))
	}
	c0, err := l.Record(gitobject.ZeroID, Lines{records.MessagesFile: fillers}, sig, "filler")
	if err != nil {
		t.Fatal(err)
	}
	ann, carl = msg("qm-1", nov.Add(time.Hour), "ann's"), msg("qm-1", nov.Add(2*time.Hour), "carl's")
	if c1, err = l.Record(c0, Lines{records.MessagesFile: {ann}}, sig, "ann"); err != nil {
		t.Fatal(err)
	}
	return c0, c1, ann, carl, fillers[0]
}

// chunkAt is the chunk at p of commit's tree.
func (l *Ledger) chunkAt(t *testing.T, commit gitobject.ID, p string) []byte {
	t.Helper()
	h, err := l.TreeOf(commit)
	if err != nil {
		t.Fatal(err)
	}
	for name := range strings.SplitSeq(p, "/") {
		tr, err := l.readTree(h)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := tr.Get(name)
		h = e.ID
	}
	data, err := l.chunk(h)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// editChunk commits, on parent, its tree with the chunk at p changed by
// edit, as a pusher may.
func editChunk(t *testing.T, l *Ledger, parent gitobject.ID, p string, edit func([]byte) []byte) gitobject.ID {
	t.Helper()
	blob, err := l.writeBlob(edit(l.chunkAt(t, parent, p)))
	if err != nil {
		t.Fatal(err)
	}
	var set func(h gitobject.ID, p string) gitobject.ID
	set = func(h gitobject.ID, p string) gitobject.ID {
		tr, err := l.readTree(h)
		if err != nil {
			t.Fatal(err)
		}
		name, rest, sub := strings.Cut(p, "/")
		e, _ := tr.Get(name)
		if sub {
			tr.Set(name, gitobject.DirMode, set(e.ID, rest))
		} else {
			tr.Set(name, gitobject.RegularMode, blob)
		}
		out, err := l.writeTree(tr)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	root, err := l.TreeOf(parent)
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.CommitTree(set(root, p), []gitobject.ID{parent}, sig, "edit "+path.Base(p))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Past maxHistory commits, or under a commit too large to read, the walk
// read nothing more, and an unread commit counted as holding nothing:
// carl merged ann's history in that way beside one of his own (his
// version first, ann's copied on top), so every commit read that held
// ann's version had his under it, and his came first. A history the walk
// cannot read whole now says nothing precedes.
func TestPrecedesOverAHistoryNotReadWholeSaysNothingComesFirst(t *testing.T) {
	l, _ := open(t)
	c0, c1, ann, carl, _ := annsFirst(t, l)
	side := editChunk(t, l, c0, first, func(data []byte) []byte { return append(data, append(carl, '\n')...) })
	side = editChunk(t, l, side, second, func(data []byte) []byte { return append(data, append(ann, '\n')...) })
	root, err := l.TreeOf(side)
	if err != nil {
		t.Fatal(err)
	}
	merge, err := l.CommitTree(root, []gitobject.ID{c1, side}, sig, "merge")
	if err != nil {
		t.Fatal(err)
	}
	const carls, anns = 0, 1
	judge := func(what string, tip gitobject.ID) {
		t.Helper()
		precedes, err := l.Precedes(tip, []Placed{{first, carl, carls}, {second, ann, anns}})
		if err != nil {
			t.Fatal(err)
		}
		if precedes(carls, anns) || precedes(anns, carls) {
			t.Errorf("%s: carl's precedes ann's %v, ann's carl's %v; want neither", what, precedes(carls, anns), precedes(anns, carls))
		}
	}
	defer func(n int) { maxHistory = n }(maxHistory)
	maxHistory = 3 // the merge and carl's two: ann's commit and the filler's are past it
	judge("a history past the walk's bound", merge)
	maxHistory = 1 << 20

	// Git takes a commit of any size; the walk reads none past
	// maxCommitBytes, so one wrapped around ann's hid it the same way.
	annRoot, err := l.TreeOf(c1)
	if err != nil {
		t.Fatal(err)
	}
	wrap, err := l.CommitTree(annRoot, []gitobject.ID{c1}, sig, strings.Repeat("x", maxCommitBytes))
	if err != nil {
		t.Fatal(err)
	}
	merge, err = l.CommitTree(root, []gitobject.ID{wrap, side}, sig, "merge")
	if err != nil {
		t.Fatal(err)
	}
	judge("ann's history under a commit too large to read", merge)
}
