package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Signature is who wrote a ledger commit, and when.
type Signature struct {
	Name, Email string
	When        time.Time
}

func (s Signature) object() object.Signature {
	return object.Signature{Name: s.Name, Email: s.Email, When: s.When}
}

func (l *Ledger) commit(h plumbing.Hash) (*object.Commit, error) {
	c, err := reread(l, func() (*object.Commit, error) { return object.GetCommit(l.st, h) })
	if err != nil {
		return nil, fmt.Errorf("read ledger commit %s: %w", short(h), err)
	}
	return c, nil
}

// reread reads an object, and when it is not found reads the list of packs
// again and retries: go-git reads that list once, and a fetch or a gc since
// may have put the object in a new pack.
func reread[T any](l *Ledger, read func() (T, error)) (T, error) {
	v, err := read()
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		l.st.Reindex()
		v, err = read()
	}
	return v, err
}

// Refresh is for callers that just had git write objects (a fetch): the
// ledger then finds them whether git unpacked them or kept a pack.
func (l *Ledger) Refresh() { l.st.Reindex() }

// writeCommit writes a commit of tree with the given parents.
func (l *Ledger) writeCommit(tree plumbing.Hash, parents []plumbing.Hash, sig Signature, msg string) (plumbing.Hash, error) {
	c := &object.Commit{
		Author:       sig.object(),
		Committer:    sig.object(),
		Message:      msg,
		TreeHash:     tree,
		ParentHashes: parents,
	}
	obj := l.st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return l.st.SetEncodedObject(obj)
}

// blob reads a blob whole.
func (l *Ledger) blob(h plumbing.Hash) ([]byte, error) {
	b, err := reread(l, func() (*object.Blob, error) { return object.GetBlob(l.st, h) })
	if err != nil {
		return nil, fmt.Errorf("read ledger blob %s: %w", short(h), err)
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read ledger blob %s: %w", short(h), err)
	}
	return data, nil
}

func (l *Ledger) writeBlob(data []byte) (plumbing.Hash, error) {
	obj := l.st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return l.st.SetEncodedObject(obj)
}

// tree is a tree being read or edited: its entries in git's order.
type tree struct {
	entries []object.TreeEntry
}

// readTree reads a tree; the zero hash is the empty tree.
func (l *Ledger) readTree(h plumbing.Hash) (*tree, error) {
	if h.IsZero() {
		return &tree{}, nil
	}
	t, err := reread(l, func() (*object.Tree, error) { return object.GetTree(l.st, h) })
	if err != nil {
		return nil, fmt.Errorf("read ledger tree %s: %w", short(h), err)
	}
	return &tree{entries: slices.Clone(t.Entries)}, nil
}

func (l *Ledger) writeTree(t *tree) (plumbing.Hash, error) {
	if len(t.entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	obj := l.st.NewEncodedObject()
	if err := (&object.Tree{Entries: t.entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return l.st.SetEncodedObject(obj)
}

func (t *tree) get(name string) (object.TreeEntry, bool) {
	for _, e := range t.entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// set adds or replaces an entry, keeping git's order; a zero hash removes it.
func (t *tree) set(name string, mode filemode.FileMode, h plumbing.Hash) {
	t.entries = slices.DeleteFunc(t.entries, func(e object.TreeEntry) bool { return e.Name == name })
	if h.IsZero() {
		return
	}
	t.entries = append(t.entries, object.TreeEntry{Name: name, Mode: mode, Hash: h})
	slices.SortFunc(t.entries, compareEntries)
}

// last returns the entry that sorts last, if any.
func (t *tree) last() (object.TreeEntry, bool) {
	if len(t.entries) == 0 {
		return object.TreeEntry{}, false
	}
	return t.entries[len(t.entries)-1], true
}

// compareEntries is git's tree order: names compared bytewise, a tree's
// name as if it ended in '/'.
func compareEntries(a, b object.TreeEntry) int {
	return strings.Compare(sortName(a), sortName(b))
}

func sortName(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// splitLines splits a chunk into its lines, without their newlines.
func splitLines(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, data)
			break
		}
		if i > 0 {
			lines = append(lines, data[:i])
		}
		data = data[i+1:]
	}
	return lines
}

func sortEntries(entries []object.TreeEntry) {
	slices.SortFunc(entries, compareEntries)
}
