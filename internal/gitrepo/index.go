package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
)

// errUnsupported marks a repository the in-process reader declines (a
// split or sparse index, an unmerged entry, SHA-256 objects, ...): the
// caller then asks git, which knows every case.
var errUnsupported = errors.New("not read in process")

// indexEntry is one entry of the index, its path pointing into the file's
// bytes, and its oid at oidAt in them: small, because a large repository
// has many entries, and a fresh process pays for every page it touches.
type indexEntry struct {
	path  []byte
	mode  uint32
	oidAt uint32
}

// cacheTree is a directory of the index's cache-tree extension: when
// valid, oid is the tree the directory's entries make, so a directory
// whose tree HEAD also has is unchanged without looking inside.
type cacheTree struct {
	valid    bool
	oid      []byte
	children map[string]*cacheTree
}

// gitIndex is what the diff needs of the index: entries sorted by path,
// and the cache-tree when git wrote one.
type gitIndex struct {
	data    []byte
	mtime   int64 // of the index file, in nanoseconds
	entries []indexEntry
	tree    *cacheTree
}

// oid is the object id of entry e.
func (idx *gitIndex) oid(e indexEntry) []byte { return idx.data[e.oidAt : e.oidAt+oidLen] }

// indexStat is the stat data git recorded for an entry when it last
// hashed the file, and the index's own modification time (git's racy
// rule: an entry not older than the index may have changed unseen).
type indexStat struct {
	ctimeSec, ctimeNsec uint32
	mtimeSec, mtimeNsec uint32
	ino, size           uint32
	indexMtime          int64 // nanoseconds
}

// stat returns e's stat data, copied out of the mapping.
func (idx *gitIndex) stat(e indexEntry) *indexStat {
	b := idx.data[e.oidAt-40 : e.oidAt]
	return &indexStat{ctimeSec: binary.BigEndian.Uint32(b[0:]), ctimeNsec: binary.BigEndian.Uint32(b[4:]),
		mtimeSec: binary.BigEndian.Uint32(b[8:]), mtimeNsec: binary.BigEndian.Uint32(b[12:]),
		ino: binary.BigEndian.Uint32(b[20:]), size: binary.BigEndian.Uint32(b[36:]), indexMtime: idx.mtime}
}

const oidLen = object.Size // SHA-1; SHA-256 repositories are left to git (object.CheckFormat)

// maxExpandedPaths bounds the paths of a version 4 index, which are stored
// as differences from the one before (a real index of a million 100-byte
// paths stays well below it).
const maxExpandedPaths = 1 << 28

// parseIndex reads the index format (versions 2 to 4) as documented in
// git's gitformat-index(5). It declines, rather than guesses, anything it
// does not fully understand.
func parseIndex(data []byte) (*gitIndex, error) {
	idx := &gitIndex{data: data}
	tree, err := walkIndex(data, func(count int) { idx.entries = make([]indexEntry, 0, count) },
		func(e indexEntry) bool { idx.entries = append(idx.entries, e); return true })
	if err != nil {
		return nil, err
	}
	idx.tree = tree
	return idx, nil
}

// walkIndex reads the index's header, gives start the number of entries,
// gives each entry in order to each until it returns false, then reads
// the extensions (past the entries not given, which are only skipped) and
// returns the cache-tree when git wrote one. It declines what parseIndex
// declines, entries and extensions alike: an index is given to the end
// only when all of it is understood.
func walkIndex(data []byte, start func(count int), each func(indexEntry) bool) (*cacheTree, error) {
	if len(data) < 12+oidLen || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no index signature", errUnsupported)
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: index version %d", errUnsupported, version)
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	const minEntry = 40 + oidLen + 2 + 1 // stat data, oid, flags, a path of at least one byte
	if count > len(data)/minEntry {
		return nil, fmt.Errorf("%w: index claims %d entries", errUnsupported, count)
	}
	body := data[:len(data)-oidLen] // the trailing checksum
	if len(data) > 1<<32-1 {
		return nil, fmt.Errorf("%w: index larger than 4 GiB", errUnsupported)
	}
	start(count)
	pos := 12
	var prev []byte
	expanded := 0 // bytes of version 4 paths rebuilt
	giving := true
	for range count {
		const fixed = 40 + oidLen + 2 // stat data, mode among it, then oid and flags
		if pos+fixed > len(body) {
			return nil, fmt.Errorf("%w: index truncated", errUnsupported)
		}
		e := indexEntry{mode: binary.BigEndian.Uint32(body[pos+24:]), oidAt: uint32(pos + 40)}
		flags := binary.BigEndian.Uint16(body[pos+40+oidLen:])
		start := pos
		pos += fixed
		if flags&0x3000 != 0 {
			return nil, fmt.Errorf("%w: unmerged entries (a merge under way)", errUnsupported)
		}
		if flags&0x4000 != 0 { // extended flags: skip-worktree, intent-to-add
			if version < 3 || pos+2 > len(body) || binary.BigEndian.Uint16(body[pos:]) != 0 {
				return nil, fmt.Errorf("%w: skip-worktree or intent-to-add entries", errUnsupported)
			}
			pos += 2
		}
		kept := 0 // bytes of the path before that begin this one (version 4)
		if version == 4 {
			strip, n := binary.Uvarint(body[pos:])
			if n <= 0 || strip > uint64(len(prev)) {
				return nil, fmt.Errorf("%w: bad path compression", errUnsupported)
			}
			pos += n
			kept = len(prev) - int(strip)
		}
		end := bytes.IndexByte(body[pos:], 0)
		if end < 0 {
			return nil, fmt.Errorf("%w: index truncated", errUnsupported)
		}
		if version < 4 {
			e.path = body[pos : pos+end]
			pos = start + (pos-start+end+8)&^7 // NUL padding to a multiple of 8
		} else {
			// A damaged index could make the paths grow without end.
			if expanded += kept + end; expanded > maxExpandedPaths {
				return nil, fmt.Errorf("%w: paths too long", errUnsupported)
			}
			e.path = append(append(make([]byte, 0, kept+end), prev[:kept]...), body[pos:pos+end]...)
			pos += end + 1
		}
		if e.mode&modeTypeMsk == modeTree {
			return nil, fmt.Errorf("%w: a sparse index", errUnsupported)
		}
		prev = e.path
		giving = giving && each(e)
	}
	var tree *cacheTree
	for pos+8 <= len(body) {
		sig := string(body[pos : pos+4])
		size := int(binary.BigEndian.Uint32(body[pos+4:]))
		pos += 8
		if size > len(body)-pos {
			return nil, fmt.Errorf("%w: index extension %q truncated", errUnsupported, sig)
		}
		ext := body[pos : pos+size]
		pos += size
		switch {
		case sig == "TREE":
			t, rest, err := parseCacheTree(ext)
			if err != nil || len(rest) != 0 {
				return nil, fmt.Errorf("%w: cache-tree extension", errUnsupported)
			}
			tree = t
		case sig == "link":
			return nil, fmt.Errorf("%w: a split index", errUnsupported)
		case sig == "sdir":
			return nil, fmt.Errorf("%w: a sparse index", errUnsupported)
		case sig[0] < 'A' || sig[0] > 'Z':
			// Lower case: git must understand it to read the index.
			return nil, fmt.Errorf("%w: index extension %q", errUnsupported, sig)
		}
	}
	return tree, nil
}

// parseCacheTree reads one directory of the cache-tree and its children:
// "NAME\0ENTRIES SUBTREES\n" then the oid when ENTRIES is not -1.
func parseCacheTree(b []byte) (*cacheTree, []byte, error) {
	_, b, named := bytes.Cut(b, []byte{0})
	if !named {
		return nil, nil, errors.New("no name")
	}
	counts, b, counted := bytes.Cut(b, []byte{'\n'})
	if !counted {
		return nil, nil, errors.New("no counts")
	}
	entriesText, subtreesText, ok := bytes.Cut(counts, []byte{' '})
	entries, err1 := strconv.Atoi(string(entriesText))
	subtrees, err2 := strconv.Atoi(string(subtreesText))
	// Each subtree takes at least "\x000 0\n".
	if !ok || err1 != nil || err2 != nil || subtrees < 0 || subtrees > len(b)/4 || entries < -1 {
		return nil, nil, errors.New("bad counts")
	}
	t := &cacheTree{valid: entries >= 0}
	if t.valid {
		if len(b) < oidLen {
			return nil, nil, errors.New("no oid")
		}
		t.oid, b = b[:oidLen], b[oidLen:]
	}
	for range subtrees {
		name := b[:max(bytes.IndexByte(b, 0), 0)]
		child, rest, err := parseCacheTree(b)
		if err != nil {
			return nil, nil, err
		}
		if t.children == nil {
			t.children = make(map[string]*cacheTree, subtrees)
		}
		t.children[string(name)] = child
		b = rest
	}
	return t, b, nil
}

// child is the cache-tree of a subdirectory, nil when unknown.
func (t *cacheTree) child(name []byte) *cacheTree {
	if t == nil {
		return nil
	}
	return t.children[string(name)]
}
