package ledger

import (
	"bytes"
	"fmt"
	"path"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/merge"
)

// MergeTrees returns the union of two ledger trees. Subtrees and chunks
// that are the same on both sides are taken as they are; a chunk both
// sides have in different versions becomes the union of its record
// versions (merge.UnionStore), which is the same whichever side is first.
// Nothing is ever dropped: a ledger only grows. An entry of a shape
// git-queen does not write, on either side, is a *DamageError: check a
// remote's commit with Inspect first, so that one left is this clone's.
func (l *Ledger) MergeTrees(a, b gitobject.ID) (gitobject.ID, error) {
	return l.mergeTrees("", a, b)
}

func (l *Ledger) mergeTrees(prefix string, a, b gitobject.ID) (gitobject.ID, error) {
	if a == b || b.IsZero() {
		return a, nil
	}
	if a.IsZero() {
		return b, nil
	}
	ta, tb, err := l.readTrees(prefix, a, b)
	if err != nil {
		return gitobject.ZeroID, err
	}
	lv := levelOf(prefix)
	out := &tree{}
	for _, name := range entryNames(ta, tb) {
		ea, inA := ta.Get(name)
		eb, inB := tb.Get(name)
		for _, e := range []struct {
			in bool
			e  entry
		}{{inA, ea}, {inB, eb}} {
			if why := lv.admit(e.e); e.in && why != "" {
				return gitobject.ZeroID, shapeError(prefix, e.e, why)
			}
		}
		p := path.Join(prefix, name)
		switch {
		case !inB || (inA && ea.ID == eb.ID):
			out.Entries = append(out.Entries, ea)
		case !inA:
			out.Entries = append(out.Entries, eb)
		case ea.Mode == gitobject.DirMode:
			h, err := l.mergeTrees(p, ea.ID, eb.ID)
			if err != nil {
				return gitobject.ZeroID, err
			}
			out.Entries = append(out.Entries, entry{Name: name, Mode: gitobject.DirMode, ID: h})
		case name == formatFile: // two FORMAT files: one is not a format this version writes
			if err := l.checkFormat(ea.ID); err != nil {
				return gitobject.ZeroID, err
			}
			return gitobject.ZeroID, l.checkFormat(eb.ID)
		default:
			h, err := l.unionBlobs(ea.ID, eb.ID)
			if err != nil {
				return gitobject.ZeroID, at(err, p)
			}
			out.Entries = append(out.Entries, entry{Name: name, Mode: ea.Mode, ID: h})
		}
	}
	out.Sort()
	if n := len(out.Encode()); n > maxTreeBytes { // as unionBlobs: each tree passed alone
		return gitobject.ZeroID, overUnion(a, b, len(ta.Encode()), len(tb.Encode()), fmt.Sprintf(
			"a tree whose union with this clone's is %d bytes, more than a ledger tree may have (%d)", n, maxTreeBytes))
	}
	return l.writeTree(out)
}

func (l *Ledger) unionBlobs(a, b gitobject.ID) (gitobject.ID, error) {
	da, err := l.chunk(a)
	if err != nil {
		return gitobject.ZeroID, err
	}
	db, err := l.chunk(b)
	if err != nil {
		return gitobject.ZeroID, err
	}
	union := merge.UnionStore(nil, da, db)
	if len(union) > MaxChunkBytes { // each passed alone; together no clone would read them
		return gitobject.ZeroID, overUnion(a, b, len(da), len(db), fmt.Sprintf(
			"a chunk whose union with this clone's is %d bytes, more than a ledger chunk may have (%d)", len(union), MaxChunkBytes))
	}
	return l.writeBlob(union)
}

// overUnion is the damage of a union of a (the caller's own) and b (the
// remote's) over a bound: the bigger side's, which is b's unless a is
// bigger (Ours).
func overUnion(a, b gitobject.ID, sizeA, sizeB int, reason string) *DamageError {
	if sizeA > sizeB {
		return &DamageError{Object: a, Reason: reason, Ours: true}
	}
	return &DamageError{Object: b, Reason: reason}
}

// readTrees reads the trees a and b, which sit at prefix, for a walk over
// both.
func (l *Ledger) readTrees(prefix string, a, b gitobject.ID) (ta, tb *tree, err error) {
	if ta, err = l.readTree(a); err == nil {
		tb, err = l.readTree(b)
	}
	return ta, tb, at(err, prefix)
}

// entryNames lists the names of both trees' entries, each once.
func entryNames(a, b *tree) []string {
	seen := map[string]bool{}
	var names []string
	for _, t := range []*tree{a, b} {
		for _, e := range t.Entries {
			if !seen[e.Name] {
				seen[e.Name] = true
				names = append(names, e.Name)
			}
		}
	}
	return names
}

// checkFormat reads the FORMAT file h (within maxFormatBytes) and refuses
// a format this version does not write: a newer git-queen's, or a push of
// something else.
func (l *Ledger) checkFormat(h gitobject.ID) error {
	data, err := l.read(h, "blob", maxFormatBytes)
	if err != nil {
		return at(err, formatFile)
	}
	if got := bytes.TrimSpace(data); string(data) != formatLine {
		return &DamageError{Path: formatFile, Object: h, Reason: fmt.Sprintf("the ledger is in the format %q, which this git-queen does not know (it writes %q); "+
			"if your team upgraded git-queen, upgrade git-queen here", got, bytes.TrimSpace([]byte(formatLine)))}
	}
	return nil
}
