package merge

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// snapshotKey is the field that names a record in the snapshot file at
// path: the one vermasSnapshots gives a VerMAS file (a route's prefix: seed
// 004's routes map prefixes to work locations, one line each), else id.
func snapshotKey(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	if key := vermasSnapshots[path.Base(p)]; key != "" && path.Base(path.Dir(p)) == ".work" {
		return key
	}
	return "id"
}

// snapshot is one input of a snapshot merge: its records by id and the
// lines that are not records.
type snapshot struct {
	recs    map[string][]byte
	opaque  [][]byte
	dups    []string // ids the input repeats
	markers int
}

// parseSnapshot reads an input whose records are named by key. A repeated
// id (damage from an earlier merge without the driver) counts its last
// line, as every reader of the file does.
func parseSnapshot(data []byte, key string) snapshot {
	s := snapshot{recs: make(map[string][]byte, bytes.Count(data, []byte{'\n'})+1)}
	keys, vals := []string{key}, make([][]byte, 1)
	for l := range jsonline.Lines(data) {
		switch {
		case l.Blank():
			continue
		case jsonline.IsConflictMarker(l.Raw):
			s.markers++
			continue
		}
		id, ok := stringField(l.Raw, keys, vals)
		if !ok || id == "" {
			s.opaque = append(s.opaque, l.Raw)
			continue
		}
		if _, seen := s.recs[id]; seen {
			s.dups = append(s.dups, id)
		}
		s.recs[id] = l.Raw
	}
	return s
}

// mergeSnapshot merges a file with one line per id (beads issues.jsonl),
// record by record against the base:
//
//   - a record only one side changed (added, edited, deleted) takes that
//     side's version, byte for byte;
//   - a record both sides changed the same way takes that version;
//   - a record deleted on one side and changed on the other is kept with
//     the change, and reported;
//   - a record both sides changed differently (or added differently) is
//     merged field by field with the same rules (see mergeRecord).
//
// The output holds one line per id, sorted by id (bytewise), then the lines
// that are not records (kept, never dropped, merged as a line union).
// Conflict-marker lines are left out and reported.
func mergeSnapshot(base, ours, theirs []byte, key string) ([]byte, []Report) {
	if out, ok := trivial(base, [][]byte{ours, theirs}); ok {
		return out, nil
	}
	// Reading the inputs is most of the work, and they are independent.
	var b, o, t snapshot
	var wg sync.WaitGroup
	wg.Go(func() { b = parseSnapshot(base, key) })
	wg.Go(func() { o = parseSnapshot(ours, key) })
	t = parseSnapshot(theirs, key)
	wg.Wait()
	var reports []Report
	for i, in := range []snapshot{b, o, t} {
		if len(in.dups) > 0 {
			reports = append(reports, Report{Kind: KindDuplicateID, Detail: fmt.Sprintf(
				"%s repeats %d ids (an earlier merge without the driver, e.g. %s); the last line of each counted, the result has one",
				[...]string{"base", "ours", "theirs"}[i], len(in.dups), in.dups[0])})
		}
	}
	if n := b.markers + o.markers + t.markers; n > 0 {
		reports = append(reports, markerReport(n))
	}

	ids := make([]string, 0, len(o.recs)+len(t.recs)/8)
	for id := range o.recs {
		ids = append(ids, id)
	}
	for id := range t.recs {
		if _, ok := o.recs[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)

	var out bytes.Buffer
	out.Grow(len(ours) + len(theirs) + 1024) // an upper bound: growing would copy
	var conflicts []Report
	for _, id := range ids {
		bv, ov, tv := b.recs[id], o.recs[id], t.recs[id]
		rec, agreed := threeWay(bv, ov, tv)
		switch {
		case agreed:
		case ov == nil || tv == nil:
			rec = ov
			side := "theirs"
			if ov == nil {
				rec, side = tv, "ours"
			}
			reports = append(reports, Report{Kind: KindDeleteModify, ID: id, Detail: fmt.Sprintf(
				"%s deleted %s, the other side changed it: kept with the change", side, id)})
		default:
			var fields []string
			rec, fields = mergeRecord(bv, ov, tv)
			if len(fields) > 0 {
				rule := "the version with the later updated_at won"
				if !timed(ov) && !timed(tv) {
					rule = "neither version has a time, so the larger bytes won"
				}
				conflicts = append(conflicts, Report{Kind: KindFieldConflict, ID: id, Detail: fmt.Sprintf(
					"both sides changed %s of %s: %s", strings.Join(fields, ", "), id, rule)})
			}
		}
		if rec != nil {
			out.Write(rec)
			out.WriteByte('\n')
		}
	}
	reports = append(reports, conflicts...)
	if len(b.opaque)+len(o.opaque)+len(t.opaque) > 0 {
		kept := unionLines(b.opaque, [][][]byte{o.opaque, t.opaque}, nil)
		out.Write(joinLines(kept))
		if len(kept) > 0 {
			reports = append(reports, Report{Kind: KindOpaque, Detail: fmt.Sprintf(
				"%d lines are not records with a string %q; kept at the end", len(kept), key)})
		}
	}
	return out.Bytes(), reports
}

// timed reports whether a version carries a time the newer rule reads.
func timed(raw []byte) bool {
	o, _ := parseObject(raw)
	_, ok := o.updatedAt()
	return ok
}
