package ledger

import (
	"fmt"
	"math"
	"path"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// Inspect checks a ledger commit another clone wrote before anything
// reads it: the commit object, every tree where to differs from the commit
// from (whose parts this clone holds already and trusts), each entry's
// name and mode, the FORMAT file, and each differing chunk's size from its
// object header, without reading a chunk. It returns the bytes of the
// chunks to holds that from does not hold at the same place (what a merge
// would read: a bound on a round's growth), or the first damage found, a
// *DamageError that names the commit and the place.
func (l *Ledger) Inspect(from, to gitobject.ID) (newBytes int64, err error) {
	return l.InspectWithin(from, to, math.MaxInt64)
}

// InspectWithin is Inspect for a round that takes at most limit bytes of
// new chunks. A commit that brings more is no damage (newBytes then says
// more than limit, with no error): it is counted to its last new entry,
// so that the caller can say how much it brings, and a bound raised once
// as it says takes it (a count that stopped at limit advised 64 MiB more
// than limit each time: a push of 1.2 GB took three raises, each a failed
// sync). InspectWithin refuses, as damage, a commit that brings more than
// limit/MinChunkAverage new entries (chunks and the directories that hold
// them) before their bytes are past limit: git-queen fills a chunk to
// ChunkSize before it starts the next, and a directory holds up to a
// hundred chunks, so only a push made to cost holds so many small ones. A
// tree of a million empty chunks (one blob named a million times: a push
// of 180 KB) passed, and took every clone's sync and every doctor 27 s to
// read; 1.9 million empty directories, 90 s. A commit over limit is
// counted no further than that many entries either (newBytes is then what
// it brings at least): its count costs what a commit that passes may,
// object headers only.
func (l *Ledger) InspectWithin(from, to gitobject.ID, limit int64) (newBytes int64, err error) {
	if to.IsZero() {
		return 0, nil
	}
	toTree, err := l.TreeOf(to)
	if err != nil {
		return 0, inCommit(err, to)
	}
	fromTree, err := l.TreeOf(from) // the zero tree for the zero commit
	if err != nil {
		return 0, err
	}
	in := &inspection{l: l, limit: limit, maxEntries: max(limit/MinChunkAverage, minEntries)}
	err = in.trees("", fromTree, toTree)
	l.objects.Forget()
	return in.newBytes, inCommit(err, to)
}

// MinChunkAverage is the least that the new chunks a round takes may
// hold on average (see InspectWithin): a quarter of ChunkSize, which
// leaves room for every month's last chunk, still open, and the chunks
// that merges leave short.
const MinChunkAverage = ChunkSize / 4

// minEntries is how many new entries a round may always read, whatever
// its limit (4,096 object headers: milliseconds), so that a small
// queen.maxReceive is met as the byte bound it is.
const minEntries = 4096

type inspection struct {
	l                   *Ledger
	newBytes, limit     int64
	chunks              int
	entries, maxEntries int64
	// cut says the count stopped at maxEntries, over limit already.
	cut bool
}

func (in *inspection) trees(prefix string, a, b gitobject.ID) error {
	if a == b || in.cut {
		return nil
	}
	tb, err := in.l.readTree(b)
	if err != nil {
		return at(err, prefix)
	}
	// a is this clone's (the zero hash, an empty tree, when there is none);
	// a part of it that does not read is not the remote's fault, and b's
	// part is inspected in full instead.
	ta, err := in.l.readTree(a)
	if err != nil {
		ta = &tree{}
	}
	lv := levelOf(prefix)
	if lv == rootLevel {
		if err := in.format(tb); err != nil {
			return err
		}
	}
	for _, eb := range tb.Entries {
		if why := lv.admit(eb); why != "" {
			return shapeError(prefix, eb, why)
		}
		ea, inA := ta.Get(eb.Name)
		if inA && ea.ID == eb.ID && ea.Mode == eb.Mode {
			continue
		}
		p := path.Join(prefix, eb.Name)
		if in.entries++; in.entries > in.maxEntries {
			if in.newBytes > in.limit {
				in.cut = true // over the bound either way: the caller says so
				return nil
			}
			return &DamageError{Path: p, Reason: fmt.Sprintf("more than %d new chunks and directories, holding %d bytes: "+
				"git-queen fills a chunk to %d bytes before it starts the next", in.maxEntries, in.newBytes, ChunkSize)}
		}
		switch {
		case eb.Mode == gitobject.DirMode:
			var from gitobject.ID
			if inA && ea.Mode == gitobject.DirMode {
				from = ea.ID
			}
			if err := in.trees(p, from, eb.ID); err != nil {
				return err
			}
		case eb.Name == formatFile:
		default:
			size, err := in.l.blobSize(eb.ID)
			if err != nil {
				return at(err, p)
			}
			if in.chunks++; in.chunks%forgetEvery == 0 {
				// Reading a header maps the pages around it in: a
				// fetched pack would end up mapped whole.
				in.l.objects.Forget()
			}
			if size > MaxChunkBytes {
				return &DamageError{Path: p, Object: eb.ID,
					Reason: fmt.Sprintf("a chunk of %d bytes, more than a ledger chunk may have (%d)", size, MaxChunkBytes)}
			}
			in.newBytes += size
		}
	}
	return nil
}

// format checks the FORMAT file of a root tree.
func (in *inspection) format(root *tree) error {
	e, ok := root.Get(formatFile)
	if !ok {
		return &DamageError{Path: formatFile, Reason: "the ledger has no FORMAT file"}
	}
	if e.Mode != gitobject.RegularMode {
		return shapeError("", e, rootLevel.admit(e))
	}
	return in.l.checkFormat(e.ID)
}

// blobSize is the size of a chunk from its object header.
func (l *Ledger) blobSize(h gitobject.ID) (int64, error) {
	kind, size, err := l.objects.HeaderWithGit(h)
	switch {
	case err != nil:
		return 0, objectDamage(h, "chunk", err)
	case kind != "blob":
		return 0, &DamageError{Object: h, Reason: fmt.Sprintf("a %s where a chunk (a blob) belongs", kind)}
	}
	return size, nil
}
