package ledger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// shaper builds a ledger commit from fuzz bytes: trees of names and modes
// that git-queen writes and of ones it does not, in order or not, chunks
// of any bytes, FORMAT files of any content, and tips that are not commits.
type shaper struct {
	l    *Ledger
	data []byte
}

func (g *shaper) next() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *shaper) pick(options ...string) string { return options[int(g.next())%len(options)] }

var shaperNames = [][]string{
	{"FORMAT", "messages", "assignments", "reservations", "junk", "FORMAT"},
	{"2026-11", "2026-12", "2026-13", "x", "2026-11"},
	{"000", "001", "0000", "abc"},
	{"00.jsonl", "01.jsonl", "0.jsonl", "00.json"},
}

func (g *shaper) write(kind gitobject.Type, content []byte) gitobject.ID {
	h, err := g.l.objects.Write(kind, content)
	if err != nil {
		panic(err)
	}
	return h
}

// blob is a chunk or FORMAT of bytes taken from the input.
func (g *shaper) blob(name string) gitobject.ID {
	if name == formatFile && g.next()%4 != 0 {
		return g.write(gitobject.BlobType, []byte(formatLine))
	}
	n := min(int(g.next()), len(g.data))
	content := g.data[:n]
	g.data = g.data[n:]
	return g.write(gitobject.BlobType, content)
}

// tree writes the raw content of a tree at level lv.
func (g *shaper) tree(lv int) gitobject.ID {
	type e struct {
		mode, name string
		h          gitobject.ID
	}
	var entries []e
	for range int(g.next()) % 4 {
		name := g.pick(shaperNames[min(lv, len(shaperNames)-1)]...)
		wantDir := lv < 3 && name != formatFile
		mode := map[bool]string{true: "40000", false: "100644"}[wantDir]
		if g.next()%8 == 0 {
			mode = g.pick("40000", "100644", "100755", "120000", "160000")
		}
		var h gitobject.ID
		switch {
		case mode == "40000" && lv < 4:
			h = g.tree(lv + 1)
		case mode == "160000":
			h, _ = gitobject.ParseHex(fmt.Sprintf("%040x", g.next()))
		default:
			h = g.blob(name)
		}
		entries = append(entries, e{mode, name, h})
	}
	if g.next()%4 != 0 {
		slices.SortFunc(entries, func(a, b e) int {
			an, bn := a.name, b.name
			if a.mode == "40000" {
				an += "/"
			}
			if b.mode == "40000" {
				bn += "/"
			}
			return bytes.Compare([]byte(an), []byte(bn))
		})
	}
	var raw bytes.Buffer
	for _, x := range entries {
		fmt.Fprintf(&raw, "%s %s\x00", x.mode, x.name)
		raw.Write(x.h[:])
	}
	return g.write(gitobject.TreeType, raw.Bytes())
}

// tip is a commit of a tree, or something else where a commit belongs.
func (g *shaper) tip() gitobject.ID {
	switch g.next() % 8 {
	case 0:
		return g.blob("x")
	case 1:
		return g.tree(0)
	case 2:
		n := min(int(g.next()), len(g.data))
		return g.write(gitobject.CommitType, g.data[:n])
	}
	c, err := g.l.CommitTree(g.tree(0), nil, sig, "fuzz")
	if err != nil {
		panic(err)
	}
	return c
}

// FuzzInspect: Inspect says of any commit a push can bring either that it
// is sound or why not (a DamageError), and never a panic; what it calls
// sound, the walk that applies records reads whole and the merge with a
// sound ledger takes, into a ledger Inspect calls sound too.
func FuzzInspect(f *testing.F) {
	f.Add([]byte{3, 3, 1, 0, 1, 0, 1, 0, 0, 5, 'h', 'e', 'l', 'l', 'o'})
	f.Add([]byte{7, 2, 0, 0, 3, 1, 9, 1, 2})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add(bytes.Repeat([]byte{3}, 64))
	// One object store for every input: objects are named by their
	// content, so what one input wrote cannot change what another reads.
	dir := f.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "objects"), 0o755); err != nil {
		f.Fatal(err)
	}
	l, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { l.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
		local, err := l.Record(gitobject.ZeroID, Lines{records.ReservationsFile: {msg("qr-1", nov, "a")}}, sig, "local")
		if err != nil {
			t.Fatal(err)
		}
		g := &shaper{l: l, data: data}
		tip := g.tip()
		if _, err := l.Inspect(local, tip); err != nil {
			if !IsDamage(err) {
				t.Fatalf("Inspect: %v is not a DamageError", err)
			}
			return
		}
		if _, err := l.All(tip); err != nil {
			t.Fatalf("Inspect passed %s, but the walk fails: %v", tip, err)
		}
		ours, _ := l.TreeOf(local)
		theirs, _ := l.TreeOf(tip)
		merged, err := l.MergeTrees(ours, theirs)
		if err != nil {
			t.Fatalf("Inspect passed %s, but the merge fails: %v", tip, err)
		}
		commit, err := l.CommitTree(merged, []gitobject.ID{local, tip}, sig, "merge")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Inspect(gitobject.ZeroID, commit); err != nil {
			t.Fatalf("the merge of two sound ledgers is not sound: %v", err)
		}
	})
}
