package ledger

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// ChunkSize is the size past which a month's last chunk is closed and the
// next line starts a new one. It bounds what recording a few new versions
// rewrites.
const ChunkSize = 64 << 10

// chunksPerDir is how many chunks a month keeps in one subtree, so that no
// tree a commit rewrites grows with the month.
const chunksPerDir = 100

// Record writes a commit on parent (the zero hash for the first) whose tree
// is parent's plus the given lines, each appended to the last chunk of the
// month it was written in. It returns parent itself when there is nothing
// to add. Lines must not contain newlines.
func (l *Ledger) Record(parent gitobject.ID, add Lines, sig Signature, msg string) (gitobject.ID, error) {
	if add.Count() == 0 && !parent.IsZero() {
		return parent, nil
	}
	root, err := l.TreeOf(parent)
	if err != nil {
		return gitobject.ZeroID, err
	}
	newRoot, err := l.appendLines(root, add, sig.When)
	if err != nil {
		return gitobject.ZeroID, err
	}
	var parents []gitobject.ID
	if !parent.IsZero() {
		parents = []gitobject.ID{parent}
	}
	return l.CommitTree(newRoot, parents, sig, msg)
}

// appendLines returns the tree root plus the lines.
func (l *Ledger) appendLines(root gitobject.ID, add Lines, fallback time.Time) (gitobject.ID, error) {
	t, err := l.readTree(root)
	if err != nil {
		return gitobject.ZeroID, err
	}
	if _, ok := t.Get(formatFile); !ok {
		h, err := l.writeBlob([]byte(formatLine))
		if err != nil {
			return gitobject.ZeroID, err
		}
		t.Set(formatFile, gitobject.RegularMode, h)
	}
	for file, lines := range add {
		if len(lines) == 0 {
			continue
		}
		dir, ok := DirOf(file)
		if !ok {
			return gitobject.ZeroID, fmt.Errorf("the ledger holds no log named %s", file)
		}
		old, _ := t.Get(dir)
		h, err := l.appendStore(old.ID, lines, fallback)
		if err != nil {
			return gitobject.ZeroID, err
		}
		t.Set(dir, gitobject.DirMode, h)
	}
	return l.writeTree(t)
}

// appendStore adds lines to one log's subtree, month by month.
func (l *Ledger) appendStore(root gitobject.ID, lines [][]byte, fallback time.Time) (gitobject.ID, error) {
	byMonth := map[string][][]byte{}
	for _, line := range lines {
		if bytes.IndexByte(line, '\n') >= 0 {
			return gitobject.ZeroID, fmt.Errorf("a ledger line must not contain a newline")
		}
		m := monthOf(line, fallback)
		byMonth[m] = append(byMonth[m], line)
	}
	t, err := l.readTree(root)
	if err != nil {
		return gitobject.ZeroID, err
	}
	for _, m := range slices.Sorted(maps.Keys(byMonth)) {
		old, _ := t.Get(m)
		h, err := l.appendMonth(old.ID, byMonth[m])
		if err != nil {
			return gitobject.ZeroID, err
		}
		t.Set(m, gitobject.DirMode, h)
	}
	return l.writeTree(t)
}

// monthOf is the month a version was written in, as the directory name
// "2026-11": its version time, else the commit's.
func monthOf(line []byte, fallback time.Time) string {
	t := records.VersionTime(line)
	if t.IsZero() {
		t = fallback
	}
	return t.UTC().Format("2006-01")
}

// appendMonth appends lines to the last chunk of a month, starting new
// chunks as each fills.
func (l *Ledger) appendMonth(root gitobject.ID, lines [][]byte) (gitobject.ID, error) {
	month, err := l.readTree(root)
	if err != nil {
		return gitobject.ZeroID, err
	}
	subtrees := map[string]*tree{}
	subtree := func(name string) (*tree, error) {
		if t, ok := subtrees[name]; ok {
			return t, nil
		}
		e, _ := month.Get(name)
		t, err := l.readTree(e.ID)
		if err != nil {
			return nil, err
		}
		subtrees[name] = t
		return t, nil
	}
	n, content := 0, []byte(nil)
	if hi, ok := month.Last(); ok {
		t, err := subtree(hi.Name)
		if err != nil {
			return gitobject.ZeroID, err
		}
		if lo, ok := t.Last(); ok {
			if n, err = chunkNumber(hi.Name, lo.Name); err != nil {
				return gitobject.ZeroID, err
			}
			if content, err = l.chunk(lo.ID); err != nil {
				return gitobject.ZeroID, err
			}
		}
	}
	flush := func() error {
		if len(content) == 0 {
			return nil
		}
		h, err := l.writeBlob(content)
		if err != nil {
			return err
		}
		hi, lo := chunkNames(n)
		t, err := subtree(hi)
		if err != nil {
			return err
		}
		t.Set(lo, gitobject.RegularMode, h)
		return nil
	}
	for _, line := range lines {
		if len(content) >= ChunkSize {
			if err := flush(); err != nil {
				return gitobject.ZeroID, err
			}
			n, content = n+1, nil
		}
		if len(content) > 0 && content[len(content)-1] != '\n' {
			content = append(content, '\n') // a chunk someone wrote without its last newline
		}
		content = append(append(content, line...), '\n')
	}
	if err := flush(); err != nil {
		return gitobject.ZeroID, err
	}
	for _, name := range slices.Sorted(maps.Keys(subtrees)) {
		h, err := l.writeTree(subtrees[name])
		if err != nil {
			return gitobject.ZeroID, err
		}
		month.Set(name, gitobject.DirMode, h)
	}
	return l.writeTree(month)
}

// chunkNames are the subtree and file names of chunk n: 123 is 001/23.jsonl.
func chunkNames(n int) (hi, lo string) {
	return fmt.Sprintf("%03d", n/chunksPerDir), fmt.Sprintf("%02d.jsonl", n%chunksPerDir)
}

func chunkNumber(hi, lo string) (int, error) {
	if !hundredName().MatchString(hi) {
		return 0, &DamageError{Path: hi, Reason: fmt.Sprintf("the chunk directory %q is not a number", hi)}
	}
	if !chunkName().MatchString(lo) {
		return 0, &DamageError{Path: hi + "/" + lo, Reason: fmt.Sprintf("the chunk %q is not a numbered .jsonl file", lo)}
	}
	h, _ := strconv.Atoi(hi) // the names matched: digits only
	l, _ := strconv.Atoi(lo[:2])
	return h*chunksPerDir + l, nil
}
