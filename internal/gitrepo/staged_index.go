package gitrepo

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
)

// stagedInProcess is `git diff --cached --no-renames --name-status`
// computed from the index and HEAD's trees, without starting git. The
// index's cache-tree names the tree of every directory git has not seen
// change, so only the directories holding staged changes are read. It
// returns an error (errUnsupported for the cases it leaves alone) whenever
// git must be asked instead.
func (r *Repo) stagedInProcess() ([]Change, error) {
	v, err := r.openInProcess()
	if err != nil {
		return nil, err
	}
	defer v.close() // the entries point into the index; the changes are copies
	d := &stagedDiff{objects: v.objects, index: v.index}
	if err := d.tree("", v.root, 0, len(v.index.entries), v.index.tree); err != nil {
		return nil, err
	}
	return d.changes, nil
}

// inProcessView is what the in-process readers read instead of asking
// git: the index (which points into its mapping until close), the objects
// and the root tree of HEAD.
type inProcessView struct {
	index   *gitIndex
	objects *objectReader
	root    []byte // the tree's id
	unmap   func()
}

func (v *inProcessView) close() {
	v.objects.close()
	v.unmap()
}

// openInProcess reads the index and HEAD's root tree as git would, or
// returns an error (errUnsupported for the cases it leaves alone: a
// repository git would read differently from what the files say, an index
// it does not fully understand, SHA-256 objects, no HEAD commit).
func (r *Repo) openInProcess() (*inProcessView, error) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
		"GIT_COMMON_DIR"} {
		if os.Getenv(v) != "" {
			return nil, fmt.Errorf("%w: %s is set", errUnsupported, v)
		}
	}
	// A hook sees the index being committed in GIT_INDEX_FILE. Git reads a
	// relative one from the top of the worktree, wherever it was started.
	indexPath := os.Getenv("GIT_INDEX_FILE")
	switch {
	case indexPath == "":
		indexPath = filepath.Join(r.GitDir, "index")
	case !filepath.IsAbs(indexPath):
		indexPath = filepath.Join(r.TopLevel, indexPath)
	}
	if format, ok := errors.AsType[*object.FormatError](CheckObjectFormat(r.CommonDir)); ok {
		return nil, fmt.Errorf("%w: %s objects", errUnsupported, format.Format)
	}
	head, ok := r.HeadCommit()
	if !ok || len(head) != 2*oidLen {
		return nil, fmt.Errorf("%w: HEAD is not a plain SHA-1 commit", errUnsupported)
	}
	// The index's time is taken before it is read: if git replaces it
	// meanwhile, the older time only makes more entries count as racy.
	var indexMtime int64
	if info, err := os.Stat(indexPath); err == nil {
		indexMtime = info.ModTime().UnixNano()
	}
	// Git replaces the index by renaming a new file over it, never by
	// writing in place, so the mapping stays whole.
	data, unmap, err := mapfile.Open(indexPath, true)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUnsupported, err)
	}
	idx, err := parseIndex(data)
	if err != nil {
		unmap()
		return nil, err
	}
	idx.mtime = indexMtime
	objects := newObjectReader(filepath.Join(r.CommonDir, "objects"))
	root, err := commitTree(objects, head)
	if err != nil {
		objects.close()
		unmap()
		return nil, err
	}
	return &inProcessView{index: idx, objects: objects, root: root, unmap: unmap}, nil
}

// commitTree returns the root tree of a commit.
func commitTree(objects *objectReader, commit string) ([]byte, error) {
	oid, ok := object.ParseHex(commit)
	if !ok {
		return nil, fmt.Errorf("%w: object id %q", errUnsupported, commit)
	}
	kind, data, err := objects.read(oid[:])
	if err != nil {
		return nil, err
	}
	c, err := object.DecodeCommit(data)
	if kind != "commit" || err != nil {
		return nil, fmt.Errorf("%w: HEAD %s is not a commit", errUnsupported, commit)
	}
	return c.Tree[:], nil
}

// stagedDiff compares index entries with HEAD's trees.
type stagedDiff struct {
	objects *objectReader
	index   *gitIndex
	changes []Change
	// fetched holds trees read ahead by prefetch, by oid.
	fetched map[string][]byte
}

const (
	modeTree    = 0o040000
	modeGitlink = 0o160000
	modeTypeMsk = 0o170000
)

// nextTreeEntry is object.NextEntry with the mode git reads the entry as
// (object.Canonical: old trees may say 100664), which is the mode the
// index holds.
func nextTreeEntry(data []byte) (mode uint32, name, oid, rest []byte, err error) {
	m, name, oid, rest, err := object.NextEntry(data)
	return uint32(object.Canonical(m)), name, oid, rest, err
}

// tree compares the tree oid at prefix ("" or "dir/") with the index
// entries [lo, hi), which are exactly those under prefix. Index paths sort
// bytewise and tree entries sort as if directories ended in "/", so one
// pass over both lines them up.
func (d *stagedDiff) tree(prefix string, oid []byte, lo, hi int, ct *cacheTree) error {
	if ct != nil && ct.valid && bytes.Equal(ct.oid, oid) {
		return nil // the index makes the very tree HEAD has here
	}
	data, err := d.readTree(oid)
	if err != nil {
		return err
	}
	d.prefetch(data, ct)
	i := lo
	var path []byte // prefix + name (+ "/"), reused to spare allocations
	for len(data) > 0 {
		mode, name, entryOID, rest, err := nextTreeEntry(data)
		if err != nil {
			return err
		}
		data = rest
		path = append(append(path[:0], prefix...), name...)
		if mode&modeTypeMsk == modeTree {
			path = append(path, '/')
		}
		for i < hi && bytes.Compare(d.index.entries[i].path, path) < 0 {
			d.add('A', i, nil)
			i++
		}
		if mode&modeTypeMsk == modeTree {
			j := d.rangeEnd(i, hi, path)
			if j == i {
				err = d.deleted(string(path), entryOID)
			} else {
				err = d.tree(string(path), entryOID, i, j, ct.child(name))
			}
			if err != nil {
				return err
			}
			i = j
			continue
		}
		if i < hi && bytes.Equal(d.index.entries[i].path, path) {
			e := d.index.entries[i]
			// HEAD's side is known for a type change too (a link HEAD
			// holds where a file is staged), as git diff --raw gives it.
			switch {
			case e.mode&modeTypeMsk != mode&modeTypeMsk:
				d.add('T', i, entryOID)
			case e.mode != mode || !bytes.Equal(d.index.oid(e), entryOID):
				d.add('M', i, entryOID)
			}
			i++
		} else {
			d.changes = append(d.changes, Change{Status: 'D', Path: string(path), Head: hex.EncodeToString(entryOID)})
		}
	}
	for ; i < hi; i++ {
		d.add('A', i, nil)
	}
	return nil
}

// rangeEnd returns the end of the entries under dir ("a/b/") that start
// at i: none before i sorts below dir, so those under it come first, and
// the first entry beyond them is found by binary search rather than by
// walking a directory of perhaps thousands of unchanged files.
func (d *stagedDiff) rangeEnd(i, hi int, dir []byte) int {
	n, _ := slices.BinarySearchFunc(d.index.entries[i:hi], dir, func(e indexEntry, dir []byte) int {
		if bytes.HasPrefix(e.path, dir) {
			return -1
		}
		return 1
	})
	return i + n
}

// add reports the index entry i as a change, with HEAD's side head (nil
// where HEAD has none).
func (d *stagedDiff) add(status byte, i int, head []byte) {
	e := d.index.entries[i]
	d.changes = append(d.changes, Change{Status: status, Path: string(e.path), Head: hex.EncodeToString(head),
		Staged: hex.EncodeToString(d.index.oid(e)), stat: d.index.stat(e)})
}

// deleted reports every file of a tree the index no longer has.
func (d *stagedDiff) deleted(prefix string, oid []byte) error {
	data, err := d.readTree(oid)
	if err != nil {
		return err
	}
	for len(data) > 0 {
		mode, name, entryOID, rest, err := nextTreeEntry(data)
		if err != nil {
			return err
		}
		data = rest
		if mode&modeTypeMsk == modeTree {
			if err := d.deleted(prefix+string(name)+"/", entryOID); err != nil {
				return err
			}
			continue
		}
		d.changes = append(d.changes, Change{Status: 'D', Path: prefix + string(name), Head: hex.EncodeToString(entryOID)})
	}
	return nil
}

// prefetch reads at once, one per CPU, the subtrees of a tree the walk
// may descend into (those the cache-tree does not show unchanged), since
// inflating them is most of the diff's work. Errors are left for the walk
// to meet again.
func (d *stagedDiff) prefetch(data []byte, ct *cacheTree) {
	var wanted [][]byte
	for len(data) > 0 {
		mode, name, oid, rest, err := nextTreeEntry(data)
		if err != nil {
			return
		}
		data = rest
		if mode&modeTypeMsk != modeTree {
			continue
		}
		if c := ct.child(name); c == nil || !c.valid || !bytes.Equal(c.oid, oid) {
			wanted = append(wanted, oid)
		}
	}
	if len(wanted) < 2 {
		return
	}
	trees := make([][]byte, len(wanted))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(wanted)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(wanted); i = int(next.Add(1) - 1) {
				if kind, tree, err := d.objects.read(wanted[i]); err == nil && kind == "tree" {
					trees[i] = tree
				}
			}
		})
	}
	wg.Wait()
	if d.fetched == nil {
		d.fetched = make(map[string][]byte, len(wanted))
	}
	for i, oid := range wanted {
		if trees[i] != nil {
			d.fetched[string(oid)] = trees[i]
		}
	}
}

func (d *stagedDiff) readTree(oid []byte) ([]byte, error) {
	if tree, ok := d.fetched[string(oid)]; ok {
		delete(d.fetched, string(oid))
		return tree, nil
	}
	kind, data, err := d.objects.read(oid)
	if err != nil {
		return nil, err
	}
	if kind != "tree" {
		return nil, fmt.Errorf("object %x is a %s, not a tree", oid, kind)
	}
	return data, nil
}
