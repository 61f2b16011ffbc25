package gitrepo

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// committedInProcess is committedByGit read from the index and HEAD's
// trees without git, one part at a time: each probe is looked up only
// among what its parent's lookup found (the entries of HEAD's tree there,
// the index entries beneath it), by its last part. A path of n parts then
// costs O(its length × log of the index's entries), and one read of each
// HEAD tree it runs through, where naming each parent to git costs O(n²).
// The object types are read as git reads them, so the answers are git's;
// whatever it does not read itself (see openInProcess, a missing object,
// a part git would read another way: "", "." or "..") it returns as an
// error, and git is asked.
func (r *Repo) committedInProcess(probes []probe) ([][2]PathKind, error) {
	v, err := r.openInProcess()
	if err != nil {
		return nil, err
	}
	defer v.close()
	objectType, root, err := v.objects.read(v.root)
	if err != nil || objectType != "tree" {
		return nil, fmt.Errorf("%w: HEAD's tree unread (%v)", errUnsupported, err)
	}
	// beneath is what HEAD and the index hold beneath a probe: its tree
	// in HEAD (nil when HEAD has no tree there) and the index entries
	// [lo, hi) under its path and a '/'.
	type beneath struct {
		tree   []byte
		lo, hi int
	}
	under := make([]beneath, len(probes))
	held := make([][2]PathKind, len(probes))
	for i, p := range probes {
		parent, name := beneath{tree: root, hi: len(v.index.entries)}, p.path
		if p.parent >= 0 {
			parent, name = under[p.parent], p.path[len(probes[p.parent].path)+1:]
		}
		if name == "" || name == "." || name == ".." {
			return nil, fmt.Errorf("%w: a path with a part %q", errUnsupported, name)
		}
		if strings.ContainsAny(name, "\n\x00") {
			continue // left to the worktree, as committedByGit leaves it
		}
		if parent.tree != nil {
			if held[i][0], under[i].tree, err = v.headEntry(parent.tree, name); err != nil {
				return nil, err
			}
		}
		// The entries in [parent.lo, parent.hi) share the parent's path
		// and its '/': they sort by what follows, and only that is
		// compared. Those beneath the probe sort from name+"/" to
		// name+"0", '/' and the byte after it.
		entries, skip := v.index.entries[parent.lo:parent.hi], len(p.path)-len(name)
		compare := func(e indexEntry, key []byte) int { return bytes.Compare(e.path[skip:], key) }
		key := []byte(name + "/")
		if j, ok := slices.BinarySearchFunc(entries, key[:len(name)], compare); ok {
			if held[i][1], err = v.indexKind(entries[j]); err != nil {
				return nil, err
			}
		}
		lo, _ := slices.BinarySearchFunc(entries, key, compare)
		key[len(name)] = '0'
		hi, _ := slices.BinarySearchFunc(entries, key, compare)
		under[i].lo, under[i].hi = parent.lo+lo, parent.lo+hi
	}
	return held, nil
}

// headEntry is what the HEAD tree holds at name, as `git cat-file` reads
// "HEAD:path": the kind its object's type makes, and the tree's content
// when it is one git would look into for the parts below (an entry whose
// mode says tree).
func (v *inProcessView) headEntry(tree []byte, name string) (PathKind, []byte, error) {
	for len(tree) > 0 {
		mode, entryName, oid, rest, err := nextTreeEntry(tree)
		if err != nil {
			return PathAbsent, nil, err
		}
		tree = rest
		if string(entryName) != name {
			continue
		}
		if mode&modeTypeMsk != modeTree {
			kind, err := v.objectKind(oid, mode)
			return kind, nil, err
		}
		objectType, data, err := v.objects.read(oid)
		if err != nil || objectType != "tree" {
			return typeKind(objectType), nil, err
		}
		return PathDir, data, nil
	}
	return PathAbsent, nil, nil
}

// indexKind is what the index entry e makes of its path, as `git
// cat-file` reads ":0:path".
func (v *inProcessView) indexKind(e indexEntry) (PathKind, error) {
	return v.objectKind(v.index.oid(e), e.mode)
}

// objectKind is typeKind of the object an entry of mode names. A gitlink
// names a commit of another repository, which is seldom here: git reads
// it as missing, and so does this, where another missing object is an
// error (a partial clone's git would fetch it).
func (v *inProcessView) objectKind(oid []byte, mode uint32) (PathKind, error) {
	if mode&modeTypeMsk == modeGitlink {
		p, _, loose, _ := v.objects.locate(oid)
		if loose != nil {
			loose.Close()
		}
		if p == nil && loose == nil {
			return PathAbsent, nil
		}
	}
	objectType, _, err := v.objects.header(oid, true)
	return typeKind(objectType), err
}
