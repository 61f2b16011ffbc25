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

// read returns the content of the object h, which must be of type want and
// at most max bytes. What the repository lacks, what is of another type or
// larger, and what does not inflate is a *DamageError.
func (o *objectStore) read(h plumbing.Hash, want string, max int64) ([]byte, error) {
	kind, data, err := o.in.ReadAtMost(h[:], max)
	if gitrepo.IsNotInProcess(err) {
		// A pack written since the packs were listed (a fetch, a gc):
		// list them again, then ask git.
		o.in.Refresh()
		if kind, data, err = o.in.ReadAtMost(h[:], max); gitrepo.IsNotInProcess(err) {
			kind, data, err = o.readWithGit(h, max)
		}
	}
	var tooLarge *gitrepo.TooLargeError
	var gitFailed *gitFailure
	switch {
	case errors.As(err, &gitFailed):
		return nil, fmt.Errorf("read ledger %s %s: %w", want, short(h), err)
	case errors.As(err, &tooLarge):
		return nil, &DamageError{Object: h, Reason: fmt.Sprintf("a %s of %d bytes, more than a ledger %s may have (%d)",
			tooLarge.Kind, tooLarge.Size, want, max)}
	case errors.Is(err, errNotFound):
		return nil, &DamageError{Object: h, Missing: true, Reason: fmt.Sprintf("the %s %s is missing from the repository", want, short(h))}
	case err != nil:
		return nil, &DamageError{Object: h, Reason: fmt.Sprintf("the %s %s cannot be read: %v", want, short(h), err)}
	case kind != want:
		return nil, &DamageError{Object: h, Reason: fmt.Sprintf("a %s where a %s belongs", kind, want)}
	}
	return data, nil
}

// gitFailure is git cat-file failing to start or to answer: a problem of
// this machine, not of the ledger.
type gitFailure struct{ err error }

func (e *gitFailure) Error() string { return e.err.Error() }
func (e *gitFailure) Unwrap() error { return e.err }

func (o *objectStore) readWithGit(h plumbing.Hash, max int64) (string, []byte, error) {
	if o.git == nil {
		git, err := gitrepo.OpenObjectsWithGit(o.commonDir)
		if err != nil {
			return "", nil, &gitFailure{err}
		}
		o.git = git
	}
	kind, data, ok, err := o.git.ReadTypedAtMost(h.String(), max)
	var tooLarge *gitrepo.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return "", nil, err
	case err != nil:
		o.git.Close()
		o.git = nil
		return "", nil, &gitFailure{err}
	case !ok:
		return "", nil, errNotFound
	}
	return kind, data, nil
}

// has reports whether the object exists already (loose, or in a pack).
func (o *objectStore) has(h plumbing.Hash) bool {
	name := h.String()
	if _, err := os.Stat(filepath.Join(o.dir, name[:2], name[2:])); err == nil {
		return true
	}
	_, _, err := o.in.Header(h[:])
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
	tree      plumbing.Hash
	parents   []plumbing.Hash
	committer Signature
}

func (l *Ledger) commit(h plumbing.Hash) (commitInfo, error) {
	data, err := l.objects.read(h, "commit", maxCommitBytes)
	if err != nil {
		return commitInfo{}, inCommit(err, h)
	}
	c, ok := parseCommit(data)
	if !ok {
		return c, &DamageError{Commit: h, Object: h, Reason: "the commit's header is not one git writes (tree, parents, author, committer)"}
	}
	return c, nil
}

// parseCommit reads a commit's tree and parents: "tree ID", then "parent
// ID" lines, then the rest of the header up to the blank line before the
// message.
func parseCommit(data []byte) (commitInfo, bool) {
	var c commitInfo
	header, _, _ := bytes.Cut(data, []byte("\n\n"))
	for i, line := range strings.Split(string(header), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch {
		case i == 0:
			if key != "tree" || !isID(value) {
				return c, false
			}
			c.tree = plumbing.NewHash(value)
		case key == "parent":
			if !isID(value) || len(c.parents) > maxParents {
				return c, false
			}
			c.parents = append(c.parents, plumbing.NewHash(value))
		case key == "committer":
			c.committer = parseSignature(value)
		}
	}
	return c, !c.tree.IsZero()
}

// parseSignature reads "NAME <EMAIL> UNIX-SECONDS ZONE"; what does not
// parse stays zero.
func parseSignature(v string) Signature {
	var sig Signature
	lt, gt := strings.IndexByte(v, '<'), strings.LastIndexByte(v, '>')
	if lt < 0 || gt < lt {
		return sig
	}
	sig.Name, sig.Email = strings.TrimSpace(v[:lt]), v[lt+1:gt]
	if fields := strings.Fields(v[gt+1:]); len(fields) > 0 {
		if secs, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			sig.When = time.Unix(secs, 0).UTC()
		}
	}
	return sig
}

// maxParents bounds the parents of a ledger commit: git-queen writes one,
// or two for a merge, or a few when it sets a damaged commit aside and
// merges that commit's parents instead.
const maxParents = 16

// isID reports whether s is a full lower-case hex object id.
func isID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
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

// chunk reads a chunk whole, within MaxChunkBytes.
func (l *Ledger) chunk(h plumbing.Hash) ([]byte, error) {
	return l.objects.read(h, "blob", MaxChunkBytes)
}

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

// readTree reads a tree; the zero hash is the empty tree. Its entries must
// be well formed and in git's order, each name once.
func (l *Ledger) readTree(h plumbing.Hash) (*tree, error) {
	if h.IsZero() {
		return &tree{}, nil
	}
	data, err := l.objects.read(h, "tree", maxTreeBytes)
	if err != nil {
		return nil, err
	}
	damaged := func(why string) error { return &DamageError{Object: h, Reason: "the tree " + why} }
	t := &tree{}
	seen := map[string]bool{}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+20 {
			return nil, damaged("is truncated or not a tree")
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, damaged(fmt.Sprintf("has a bad mode %q", data[:sp]))
		}
		var e entry
		e.Name, e.Mode = string(data[sp+1:nul]), filemode.FileMode(mode)
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsRune(e.Name, '/') {
			return nil, damaged(fmt.Sprintf("has an entry named %q", e.Name))
		}
		copy(e.Hash[:], data[nul+1:nul+21])
		if n := len(t.entries); n > 0 && sortName(t.entries[n-1]) >= sortName(e) || seen[e.Name] {
			return nil, damaged(fmt.Sprintf("lists %q out of order or twice", e.Name))
		}
		seen[e.Name] = true
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
