package refs

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/gitrepo"
)

// Ref is one ref and the id it holds (zero when its file holds no id).
type Ref struct {
	Name string
	ID   plumbing.Hash
}

// List returns the refs whose names start with prefix (a constant such as
// "refs/queen/"), sorted by name; a loose ref wins over a packed one, as
// in git.
func (s *Store) List(prefix string) ([]Ref, error) {
	if s.reftable {
		out, err := gitrepo.Git("", "--git-dir", s.dir, "for-each-ref", "--format=%(objectname) %(refname)", "--", prefix)
		if err != nil {
			return nil, err
		}
		var refs []Ref
		for line := range strings.Lines(out) {
			if id, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && strings.HasPrefix(name, prefix) {
				refs = append(refs, Ref{Name: name, ID: hashOrZero(id)})
			}
		}
		return refs, nil
	}
	byName := map[string]plumbing.Hash{}
	if err := s.addPacked(prefix, byName, func(id, name string) bool {
		_, seen := byName[name]
		return !seen || plumbing.IsHash(id)
	}); err != nil {
		return nil, err
	}
	root := filepath.Join(s.dir, filepath.FromSlash(prefix))
	if !strings.HasSuffix(prefix, "/") {
		root = filepath.Dir(root)
	}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(s.dir, p)
		name := filepath.ToSlash(rel)
		if err != nil || !strings.HasPrefix(name, prefix) {
			return nil
		}
		data, err := readBounded(p)
		if id := strings.TrimSpace(string(data)); err == nil && len(data) <= maxRefFile && plumbing.IsHash(id) {
			byName[name] = plumbing.NewHash(id)
		} else if _, packed := byName[name]; !packed {
			byName[name] = plumbing.ZeroHash
		}
		return nil
	})
	return sortedRefs(byName), nil
}

// addPacked adds to byName the refs packed-refs lists under prefix that
// keep accepts. packed-refs can list every tag of a large repository: it
// is looked through for the prefix before it is read line by line. What
// is not a regular file is refused unread (regular.Read), as by PackedRef:
// a named pipe there waited for a writer forever.
func (s *Store) addPacked(prefix string, byName map[string]plumbing.Hash, keep func(id, name string) bool) error {
	data, err := regular.Read(filepath.Join(s.dir, "packed-refs"), 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if !bytes.Contains(data, []byte(prefix)) {
		return nil
	}
	for line := range strings.Lines(string(data)) {
		// "ID REF"; comments start with '#', peeled tags with '^'.
		if id, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && strings.HasPrefix(name, prefix) && keep(id, name) {
			byName[name] = hashOrZero(id)
		}
	}
	return nil
}

// sortedRefs is byName as a list sorted by name.
func sortedRefs(byName map[string]plumbing.Hash) []Ref {
	refs := make([]Ref, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		refs = append(refs, Ref{Name: name, ID: byName[name]})
	}
	return refs
}

// Tips returns, by name, the commit each ref under prefix points at, in
// hex: what the pre-push hook needs of the remote-tracking refs, read
// without starting git.
func (s *Store) Tips(prefix string) (map[string]string, error) {
	list, err := s.List(prefix)
	if err != nil {
		return nil, err
	}
	tips := make(map[string]string, len(list))
	for _, r := range list {
		if !r.ID.IsZero() {
			tips[r.Name] = r.ID.String()
		}
	}
	return tips, nil
}

// ListOne returns the refs named prefix + one component + suffix
// (refs/queen/remotes/NAME/ledger), sorted by name, reading no loose ref
// of any other name: a remote can push thousands of refs that a fetch
// brings below prefix, and List read every one of them on every call.
func (s *Store) ListOne(prefix, suffix string) ([]Ref, error) {
	matches := func(name string) bool {
		one, ok := strings.CutPrefix(name, prefix)
		one, ok2 := strings.CutSuffix(one, suffix)
		return ok && ok2 && one != "" && !strings.Contains(one, "/")
	}
	if s.reftable {
		all, err := s.List(prefix)
		return slices.DeleteFunc(all, func(r Ref) bool { return !matches(r.Name) }), err
	}
	byName := map[string]plumbing.Hash{}
	if err := s.addPacked(prefix, byName, func(id, name string) bool { return matches(name) && plumbing.IsHash(id) }); err != nil {
		return nil, err
	}
	entries, _ := os.ReadDir(filepath.Join(s.dir, filepath.FromSlash(prefix)))
	for _, e := range entries {
		name := prefix + e.Name() + suffix
		if !e.IsDir() || !matches(name) {
			continue
		}
		if id, err := readFiles(s.dir, name); err == nil && !id.IsZero() {
			byName[name] = id
		}
	}
	return sortedRefs(byName), nil
}

func hashOrZero(id string) plumbing.Hash {
	if len(id) == 40 && plumbing.IsHash(id) {
		return plumbing.NewHash(id)
	}
	return plumbing.ZeroHash
}
