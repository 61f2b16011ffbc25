package ledger

import (
	"bytes"
	"slices"
	"strings"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// Placed is a line of the chunk at Path (Chunk.Path) of a ledger commit's
// tree, one of the versions of Group (a number the caller gives: the
// versions of one record that name the same parties, say).
type Placed struct {
	Path  string
	Line  []byte
	Group int
}

// maxHistory bounds the commits Precedes reads of a history (a node each:
// its id, tree, parents and the groups seen up to it). Past it, or past a commit it cannot read, Precedes says
// nothing precedes: a commit it did not read, taken as holding nothing,
// let a pusher who merged the history in under a longer one of their own,
// or under a commit too large to read, have their version come first.
var maxHistory = 1 << 20

// Precedes says, of groups of versions placed in tip's tree, which come
// before which in tip's history: p precedes q when every commit of the
// history whose tree holds a version of q has a version of p in its own
// tree or in an ancestor's. A version's place in the tree, the times it
// gives itself and the order of a merge's parents are whatever its pusher
// wrote; what a commit has under it is fixed by its id. So a pusher who
// brings a version after another cannot make it come before: the most
// they can do is bring it in a history of its own (a commit not over the
// other's, merged in), after which neither precedes the other. Taking a
// line out of the tree later changes nothing. The walk reads each
// commit's header, and of each tree only the subtrees on the versions'
// paths, each tree and chunk once.
func (l *Ledger) Precedes(tip gitobject.ID, versions []Placed) (func(p, q int) bool, error) {
	order, err := l.parentsFirst(tip)
	if err != nil || order == nil {
		return func(int, int) bool { return false }, err
	}
	atPath := map[string][]int{} // the versions at each path
	for i, v := range versions {
		atPath[v.Path] = append(atPath[v.Path], i)
	}
	type place struct {
		tree gitobject.ID
		name string
	}
	under := map[place]gitobject.ID{} // a tree's entries on the versions' paths
	lookup := func(root gitobject.ID, p string) (gitobject.ID, error) {
		h := root
		for name := range strings.SplitSeq(p, "/") {
			if h.IsZero() {
				break
			}
			at := place{h, name}
			next, ok := under[at]
			if !ok {
				t, err := l.readTree(h)
				if err != nil && !IsDamage(err) {
					return gitobject.ZeroID, err
				}
				if err == nil {
					e, _ := t.Get(name)
					next = e.ID
				}
				under[at] = next
			}
			h = next
		}
		return h, nil
	}
	holds := map[place][]int{} // the groups a chunk holds, by its id and path
	had := map[int][]int{}     // for a group, the groups every commit holding it had seen
	for _, c := range order {
		var s []int
		for _, p := range c.parents {
			s = union(s, p.seen)
		}
		var here []int
		for p, at := range atPath {
			h, err := lookup(c.tree, p)
			if err != nil {
				return nil, err
			}
			if h.IsZero() {
				continue
			}
			g, ok := holds[place{h, p}]
			if !ok {
				data, err := l.chunk(h)
				if err != nil && !IsDamage(err) {
					return nil, err
				}
				for _, i := range at {
					if holdsLine(data, versions[i].Line) {
						g = union(g, []int{versions[i].Group})
					}
				}
				holds[place{h, p}] = g
			}
			here = union(here, g)
		}
		s = union(s, here)
		c.seen = s
		for _, q := range here {
			if before, ok := had[q]; ok {
				had[q] = intersect(before, s)
			} else {
				had[q] = s
			}
		}
	}
	return func(p, q int) bool { return p != q && slices.Contains(had[q], p) }, nil
}

// commitNode is what Precedes reads of a commit, and what it learns.
type commitNode struct {
	tree    gitobject.ID
	parents []*commitNode
	// seen is the groups in the commit's tree or under it (sorted; a
	// parent's own when the commit brings none).
	seen  []int
	state nodeState
}

// nodeState is how far parentsFirst has come with a commit.
type nodeState uint8

const (
	unread nodeState = iota // met as a parent, not read yet
	read                    // read, its parents on the stack above it
	placed                  // in the order, after its parents
)

// parentsFirst is tip's history, each commit after its parents, or nil
// when it is longer than maxHistory commits or holds one it cannot read
// (damaged, too large, or missing from a shallow clone).
func (l *Ledger) parentsFirst(tip gitobject.ID) ([]*commitNode, error) {
	nodes := map[gitobject.ID]*commitNode{}
	nodeOf := func(id gitobject.ID) *commitNode {
		n := nodes[id]
		if n == nil {
			n = &commitNode{}
			nodes[id] = n
		}
		return n
	}
	type entry struct {
		id gitobject.ID
		n  *commitNode
	}
	var order []*commitNode
	stack := []entry{{tip, nodeOf(tip)}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		switch top.n.state {
		case unread:
			if len(nodes) > maxHistory {
				return nil, nil
			}
			c, err := l.commit(top.id)
			if IsDamage(err) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			top.n.tree, top.n.state = c.Tree, read
			top.n.parents = make([]*commitNode, len(c.Parents))
			for i, p := range c.Parents {
				if top.n.parents[i] = nodeOf(p); top.n.parents[i].state == unread {
					stack = append(stack, entry{p, top.n.parents[i]})
				}
			}
		case read:
			top.n.state = placed
			order = append(order, top.n)
			fallthrough
		default: // placed, met again through another child
			stack = stack[:len(stack)-1]
		}
	}
	return order, nil
}

// union is the sorted set of a's and b's members; a itself when b adds
// none (commits that bring nothing share their parent's set).
func union(a, b []int) []int {
	out, cloned := a, false
	for _, x := range b {
		if i, found := slices.BinarySearch(out, x); !found {
			if !cloned {
				out, cloned = slices.Clone(out), true
			}
			out = slices.Insert(out, i, x)
		}
	}
	return out
}

// intersect is the sorted set of the members of a that b has.
func intersect(a, b []int) []int {
	var out []int
	for _, x := range a {
		if _, found := slices.BinarySearch(b, x); found {
			out = append(out, x)
		}
	}
	return out
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
