package object

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Mode is a tree entry's mode (go-git's), as the tree writes it.
type Mode = filemode.FileMode

// The modes git writes.
const (
	DirMode        = filemode.Dir        // 040000
	RegularMode    = filemode.Regular    // 100644
	ExecutableMode = filemode.Executable // 100755
	SymlinkMode    = filemode.Symlink    // 120000
	GitlinkMode    = filemode.Submodule  // 160000
	typeMask       = 0o170000
)

// The mode rule. An entry keeps the mode its tree writes; Canonical is the
// mode git itself reads it as (canon_mode: old trees may say 100664, and
// any mode of no known type is a gitlink). Code that compares a tree with
// the index, which git fills with canonical modes, compares Canonical
// modes; the ledger, whose trees are input from other clones, demands the
// mode as written be the one git-queen writes (040000 or 100644), so a
// 100664, a gitlink, a symbolic link or an unknown mode is damage. (A
// zero-padded "040000" is the value 040000, as it always was to the
// ledger; git's fsck warns of it, and Encode writes "40000".)

// Canonical is the mode git reads m as.
func Canonical(m Mode) Mode {
	switch m & typeMask {
	case 0o100000: // git keeps only the owner's execute bit
		if m&0o100 != 0 {
			return ExecutableMode
		}
		return RegularMode
	case DirMode, SymlinkMode:
		return m & typeMask
	}
	return GitlinkMode
}

// Describe names what a mode is ("a symbolic link"), as the written
// mode says: "unknown" for a mode git does not write.
func Describe(m Mode) string { return cmp.Or(modeNames[m], "unknown") }

// modeNames are the names Describe gives the modes git writes.
var modeNames = map[Mode]string{DirMode: "a directory", RegularMode: "a file", filemode.Deprecated: "a file",
	ExecutableMode: "an executable file", SymlinkMode: "a symbolic link", GitlinkMode: "a submodule (gitlink)"}

// MalformedError is an object that is not of its type's format.
type MalformedError struct {
	Kind   string // "tree", "commit"
	Reason string // what is wrong, a sentence about it: "the tree lists ..."
}

func (e *MalformedError) Error() string { return e.Reason }

func malformedTree(why string) error { return &MalformedError{"tree", "the tree " + why} }

// NextEntry splits "MODE NAME\0ID" off the front of a tree's bytes,
// without allocating: the staged diff of the pre-commit hook walks trees
// with it. name and id point into data. The mode must be octal digits that
// fit 32 bits; the name is not checked (DecodeTree does).
func NextEntry(data []byte) (mode Mode, name, id, rest []byte, err error) {
	sp := bytes.IndexByte(data, ' ')
	nul := bytes.IndexByte(data, 0)
	if sp < 0 || nul < sp || len(data) < nul+1+Size {
		return 0, nil, nil, nil, malformedTree("is truncated or not a tree")
	}
	digits := data[:sp]
	if len(digits) > 11 { // more than 32 bits, unless zero-padded
		digits = bytes.TrimLeft(digits, "0")
	}
	var m uint64
	for _, c := range digits {
		if c < '0' || c > '7' {
			m = 1 << 32
			break
		}
		m = m<<3 | uint64(c-'0')
	}
	if sp == 0 || len(digits) > 11 || m > 0xffffffff {
		return 0, nil, nil, nil, malformedTree(fmt.Sprintf("has a bad mode %q", data[:sp]))
	}
	return Mode(m), data[sp+1 : nul], data[nul+1 : nul+1+Size], data[nul+1+Size:], nil
}

// Entry is one entry of a decoded tree.
type Entry struct {
	Name string
	Mode Mode
	ID   ID
}

// sortName is the name git sorts an entry by: a tree's as if it ended
// in '/'.
func (e Entry) sortName() string {
	if e.Mode == DirMode {
		return e.Name + "/"
	}
	return e.Name
}

// Tree is a tree being read or edited: its entries in git's order.
type Tree struct {
	Entries []Entry
}

// DecodeTree reads a tree's bytes. Its entries must be well formed and in
// git's order, each name once, no name empty, "." or "..", or holding a
// '/'; anything else is a *MalformedError.
func DecodeTree(data []byte) (*Tree, error) {
	t := &Tree{}
	seen := map[string]bool{}
	for len(data) > 0 {
		mode, name, id, rest, err := NextEntry(data)
		if err != nil {
			return nil, err
		}
		e := Entry{Name: string(name), Mode: mode, ID: ID(id)}
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsRune(e.Name, '/') {
			return nil, malformedTree(fmt.Sprintf("has an entry named %q", e.Name))
		}
		if n := len(t.Entries); n > 0 && t.Entries[n-1].sortName() >= e.sortName() || seen[e.Name] {
			return nil, malformedTree(fmt.Sprintf("lists %q out of order or twice", e.Name))
		}
		seen[e.Name] = true
		t.Entries = append(t.Entries, e)
		data = rest
	}
	return t, nil
}

// Encode is the tree's bytes, its entries in the order they are in (Set
// and Sort keep git's).
func (t *Tree) Encode() []byte {
	var b bytes.Buffer
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "%o %s\x00", uint32(e.Mode), e.Name)
		b.Write(e.ID[:])
	}
	return b.Bytes()
}

// Get finds the entry of a name.
func (t *Tree) Get(name string) (Entry, bool) {
	if i := slices.IndexFunc(t.Entries, func(e Entry) bool { return e.Name == name }); i >= 0 {
		return t.Entries[i], true
	}
	return Entry{}, false
}

// Set adds or replaces an entry, keeping git's order; the zero id removes
// it.
func (t *Tree) Set(name string, mode Mode, id ID) {
	t.Entries = slices.DeleteFunc(t.Entries, func(e Entry) bool { return e.Name == name })
	if id.IsZero() {
		return
	}
	t.Entries = append(t.Entries, Entry{Name: name, Mode: mode, ID: id})
	t.Sort()
}

// Last returns the entry that sorts last, if any.
func (t *Tree) Last() (Entry, bool) {
	if len(t.Entries) == 0 {
		return Entry{}, false
	}
	return t.Entries[len(t.Entries)-1], true
}

// Sort puts the entries in git's tree order: names compared bytewise, a
// tree's name as if it ended in '/'.
func (t *Tree) Sort() {
	slices.SortFunc(t.Entries, func(a, b Entry) int { return strings.Compare(a.sortName(), b.sortName()) })
}
