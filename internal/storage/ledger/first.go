package ledger

import (
	"bytes"
	"path"
	"slices"
	"strings"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// Placed is a line of the chunk at Path (Chunk.Path) of a ledger commit's
// tree.
type Placed struct {
	Path string
	Line []byte
}

// maxFirstChain bounds the commits FirstBrought walks down a first-parent
// chain (a megabyte of ids a million commits): a version under the last
// it reads counts as brought by that one.
const maxFirstChain = 1 << 20

// FirstBrought says which commit of tip's history first brought each of
// versions, each a line of tip's tree: its place on tip's first-parent
// chain, counted from the oldest commit walked (0) to tip, of the first
// commit whose chunk at the version's path holds its line. A version's
// place in the tree, and the times it gives itself, are whatever its
// pusher wrote; the commit that brought it is under every commit pushed
// after it, which a pusher changes only by rewriting the history the
// team's clones already hold. The walk reads each commit's header and, up
// the chain from the oldest, the trees on the versions' paths that differ
// from its parent's, and a chunk of theirs only where it changed: its
// cost follows the history's length, not how many versions it judges.
func (l *Ledger) FirstBrought(tip gitobject.ID, versions []Placed) ([]int, error) {
	var trees []gitobject.ID // of the chain's commits, newest first
	for c := tip; !c.IsZero() && len(trees) < maxFirstChain; {
		commit, err := l.commit(c)
		if err != nil {
			if !IsDamage(err) {
				return nil, err
			}
			break // the oldest commit this clone reads
		}
		trees = append(trees, commit.Tree)
		if len(commit.Parents) == 0 {
			break
		}
		c = commit.Parents[0]
	}
	out := make([]int, len(versions))
	left := map[string][]int{} // the versions not found yet, by path
	for i, v := range versions {
		left[v.Path] = append(left[v.Path], i)
		out[i] = len(trees) - 1
	}
	var prev map[string]gitobject.ID
	for n := len(trees) - 1; n >= 0 && len(left) > 0; n-- {
		ids := map[string]gitobject.ID{"": trees[n]}
		for p, waiting := range left {
			h, err := l.idAt(ids, prev, p)
			if err != nil {
				return nil, err
			}
			if h.IsZero() || h == prev[p] {
				continue
			}
			data, err := l.chunk(h)
			if err != nil && !IsDamage(err) {
				return nil, err
			}
			waiting = slices.DeleteFunc(waiting, func(i int) bool {
				if !holdsLine(data, versions[i].Line) {
					return false
				}
				out[i] = len(trees) - 1 - n
				return true
			})
			if left[p] = waiting; len(waiting) == 0 {
				delete(left, p)
			}
		}
		prev = ids
	}
	return out, nil
}

// idAt is the id of the object at p (a tree's or a chunk's) in the tree
// ids[""], or zero; ids holds those found so far in this tree, by path,
// and prev those of the tree before, whose subtrees with the same id are
// not read again.
func (l *Ledger) idAt(ids, prev map[string]gitobject.ID, p string) (gitobject.ID, error) {
	if h, ok := ids[p]; ok {
		return h, nil
	}
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	parent, err := l.idAt(ids, prev, dir)
	if err != nil {
		return gitobject.ZeroID, err
	}
	var h gitobject.ID
	switch {
	case parent.IsZero():
	case prev != nil && parent == prev[dir]:
		h = prev[p]
	default:
		t, err := l.readTree(parent)
		if err != nil && !IsDamage(err) {
			return gitobject.ZeroID, err
		}
		if err == nil {
			e, _ := t.Get(name)
			h = e.ID
		}
	}
	ids[p] = h
	return h, nil
}

// holdsLine says whether a chunk's bytes hold line.
func holdsLine(data, line []byte) bool {
	for l := range LinesOf(data) {
		if bytes.Equal(l, line) {
			return true
		}
	}
	return false
}
