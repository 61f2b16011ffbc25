package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// The ledger writes objects with go-git's object-file writer (hashing and
// compressing as git does) and reads them with gitrepo's in-process reader
// (loose objects, and packs searched through their mapped indexes), falling
// back to `git cat-file` where that reader declines. It does not use
// go-git's repository storage: that storage decodes a pack's whole index to
// find one object (a large repository's history, on every sync), and the
// packages it and go-git's object model pull in cost every git-queen
// process, the pre-commit hook included, most of a millisecond to
// initialise. Trees and commits are small, fixed formats, encoded here.

// objectStore reads and writes one repository's objects.
type objectStore struct {
	commonDir string
	dir       string // objects/
	in        *gitrepo.Objects
	git       *gitrepo.Blobs // started on first need
}

func newObjectStore(commonDir string) *objectStore {
	return &objectStore{commonDir: commonDir, dir: filepath.Join(commonDir, "objects"), in: gitrepo.OpenObjects(commonDir)}
}

func (o *objectStore) close() error {
	err := o.in.Close()
	if o.git != nil {
		err = errors.Join(err, o.git.Close())
	}
	return err
}

// errNotFound is an object neither the in-process reader nor git has.
var errNotFound = errors.New("object not found")

// read returns the content of the object h, which must be of type want.
func (o *objectStore) read(h plumbing.Hash, want string) ([]byte, error) {
	kind, data, err := o.in.Read(h[:])
	if gitrepo.IsNotInProcess(err) {
		// A pack written since the packs were listed (a fetch, a gc):
		// list them again, then ask git.
		o.in.Refresh()
		if kind, data, err = o.in.Read(h[:]); gitrepo.IsNotInProcess(err) {
			kind, data, err = o.readWithGit(h)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read ledger %s %s: %w", want, short(h), err)
	}
	if kind != want {
		return nil, fmt.Errorf("ledger object %s is a %s, not a %s", short(h), kind, want)
	}
	return data, nil
}

func (o *objectStore) readWithGit(h plumbing.Hash) (string, []byte, error) {
	if o.git == nil {
		git, err := gitrepo.OpenObjectsWithGit(o.commonDir)
		if err != nil {
			return "", nil, err
		}
		o.git = git
	}
	kind, data, ok, err := o.git.ReadTyped(h.String())
	if err == nil && !ok {
		err = errNotFound
	}
	return kind, data, err
}

// has reports whether the object exists already (loose, or in a pack).
func (o *objectStore) has(h plumbing.Hash) bool {
	name := h.String()
	if _, err := os.Stat(filepath.Join(o.dir, name[:2], name[2:])); err == nil {
		return true
	}
	_, _, err := o.in.Read(h[:])
	return err == nil
}

// write stores an object as a loose object, unless it exists already: a
// temporary file in objects/ renamed into place, as git does, so a reader
// sees the whole object or none.
func (o *objectStore) write(t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, content)
	if o.has(h) {
		return h, nil
	}
	name := h.String()
	dst := filepath.Join(o.dir, name[:2], name[2:])
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return plumbing.ZeroHash, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "tmp_obj_")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
	}()
	w := objfile.NewWriter(tmp)
	err = w.WriteHeader(t, int64(len(content)))
	if err == nil {
		_, err = w.Write(content)
	}
	if err == nil {
		err = w.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write ledger object: %w", err)
	}
	if w.Hash() != h {
		return plumbing.ZeroHash, fmt.Errorf("write ledger object: hashed %s, wrote %s", h, w.Hash())
	}
	os.Chmod(tmp.Name(), 0o444)
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write ledger object: %w", err)
	}
	renamed = true
	return h, nil
}

// Signature is who wrote a ledger commit, and when.
type Signature struct {
	Name, Email string
	When        time.Time
}

func (s Signature) encode() string {
	name := strings.NewReplacer("<", "", ">", "", "\n", " ").Replace(s.Name)
	email := strings.NewReplacer("<", "", ">", "", "\n", "").Replace(s.Email)
	return fmt.Sprintf("%s <%s> %d %s", name, email, s.When.Unix(), s.When.Format("-0700"))
}

// commitInfo is what the ledger reads of a commit.
type commitInfo struct {
	tree    plumbing.Hash
	parents []plumbing.Hash
}

func (l *Ledger) commit(h plumbing.Hash) (commitInfo, error) {
	data, err := l.objects.read(h, "commit")
	if err != nil {
		return commitInfo{}, err
	}
	var c commitInfo
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			break // the message follows
		}
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			c.tree = plumbing.NewHash(value)
		case "parent":
			c.parents = append(c.parents, plumbing.NewHash(value))
		}
	}
	if c.tree.IsZero() {
		return c, fmt.Errorf("ledger commit %s has no tree", short(h))
	}
	return c, nil
}

// writeCommit writes a commit of tree with the given parents.
func (l *Ledger) writeCommit(tree plumbing.Hash, parents []plumbing.Hash, sig Signature, msg string) (plumbing.Hash, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s\n", sig.encode(), sig.encode(), strings.TrimRight(msg, "\n"))
	return l.objects.write(plumbing.CommitObject, []byte(b.String()))
}

// blob reads a blob whole.
func (l *Ledger) blob(h plumbing.Hash) ([]byte, error) { return l.objects.read(h, "blob") }

func (l *Ledger) writeBlob(data []byte) (plumbing.Hash, error) {
	return l.objects.write(plumbing.BlobObject, data)
}

// entry is one entry of a tree.
type entry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// tree is a tree being read or edited: its entries in git's order.
type tree struct {
	entries []entry
}

// readTree reads a tree; the zero hash is the empty tree.
func (l *Ledger) readTree(h plumbing.Hash) (*tree, error) {
	if h.IsZero() {
		return &tree{}, nil
	}
	data, err := l.objects.read(h, "tree")
	if err != nil {
		return nil, err
	}
	t := &tree{}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+20 {
			return nil, fmt.Errorf("ledger tree %s is damaged", short(h))
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("ledger tree %s: bad mode %q", short(h), data[:sp])
		}
		var e entry
		e.Name, e.Mode = string(data[sp+1:nul]), filemode.FileMode(mode)
		copy(e.Hash[:], data[nul+1:nul+21])
		t.entries = append(t.entries, e)
		data = data[nul+21:]
	}
	return t, nil
}

func (l *Ledger) writeTree(t *tree) (plumbing.Hash, error) {
	if len(t.entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	var b bytes.Buffer
	for _, e := range t.entries {
		fmt.Fprintf(&b, "%o %s\x00", uint32(e.Mode), e.Name)
		b.Write(e.Hash[:])
	}
	return l.objects.write(plumbing.TreeObject, b.Bytes())
}

func (t *tree) get(name string) (entry, bool) {
	for _, e := range t.entries {
		if e.Name == name {
			return e, true
		}
	}
	return entry{}, false
}

// set adds or replaces an entry, keeping git's order; a zero hash removes it.
func (t *tree) set(name string, mode filemode.FileMode, h plumbing.Hash) {
	t.entries = slices.DeleteFunc(t.entries, func(e entry) bool { return e.Name == name })
	if h.IsZero() {
		return
	}
	t.entries = append(t.entries, entry{Name: name, Mode: mode, Hash: h})
	t.sort()
}

// last returns the entry that sorts last, if any.
func (t *tree) last() (entry, bool) {
	if len(t.entries) == 0 {
		return entry{}, false
	}
	return t.entries[len(t.entries)-1], true
}

// sort puts the entries in git's tree order: names compared bytewise, a
// tree's name as if it ended in '/'.
func (t *tree) sort() {
	slices.SortFunc(t.entries, func(a, b entry) int { return strings.Compare(sortName(a), sortName(b)) })
}

func sortName(e entry) string {
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
