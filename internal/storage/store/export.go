package store

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// ExportStats says what an export wrote to one file.
type ExportStats struct {
	File string `json:"file"`
	// Records is how many records the store holds; Written how many
	// versions went to the file (the rest it had already).
	Records int `json:"records"`
	Written int `json:"written"`
}

// Export writes the current version of every record of the logs names to
// files of the same names in dir: the seed's .beads/ layout, for tools that
// read it (QueenBee's own CLI reads the last line of each id). A file that
// exists is only appended to, with the versions it lacks that are newer
// than its own, so an export committed to git grows like the log it copies
// and the pre-commit hook's append-only check accepts it. It runs under
// the store's lock, so it sees every write that finished before it. An
// export into a file that only grew since the last one reads what was
// appended since (see exportmark.go).
func (s *Store) Export(dir string, names []string) ([]ExportStats, error) {
	var out []ExportStats
	err := s.Update(func(tx *jsonl.Tx) error {
		for _, name := range names {
			st, err := s.exportIn(tx, dir, name)
			if err != nil {
				return err
			}
			out = append(out, st)
		}
		return nil
	})
	return out, err
}

func (s *Store) exportIn(tx *jsonl.Tx, dir, name string) (ExportStats, error) {
	target := filepath.Join(dir, name)
	src, err := s.Sources(name)
	if err != nil {
		return ExportStats{File: target}, err
	}
	markPath := s.exportMarkPath(target)
	if m, ok := readExportMark(markPath); ok && m.Target.Path == target && samePaths(m.Sources, src.Paths) {
		if st, ok, err := s.exportAppended(tx, target, m, markPath); ok || err != nil {
			exportedByMark(target)
			return st, err
		}
	}
	return s.exportAll(tx, dir, target, src, markPath)
}

// exportedByMark is called when an export read only what was appended;
// tests count it.
var exportedByMark = func(target string) {}

// exportAll compares every current version with the file's, and leaves a
// mark and an index for the next export.
func (s *Store) exportAll(tx *jsonl.Tx, dir, target string, src *Sources, markPath string) (ExportStats, error) {
	st := ExportStats{File: target}
	// The sources' stats before the selection: what is appended after them
	// is the next export's to look at.
	before := make([]os.FileInfo, len(src.Paths))
	for i, p := range src.Paths {
		before[i], _ = os.Stat(p)
	}
	sel, err := s.SelectFrom(src, exportQuery)
	if err != nil {
		return st, err
	}
	st.Records = len(sel.Entries)
	var file []jsonl.Record
	data, err := os.ReadFile(target)
	switch {
	case err == nil:
		file = jsonl.Materialize(data, target, "", records.Versions).Records
	case !errors.Is(err, os.ErrNotExist):
		return st, err
	}
	at := make(map[string]int, len(file))
	for i, r := range file {
		at[r.ID] = i
	}
	inSources := make([]bool, len(file))
	index := make([]indexEntry, 0, max(len(file), len(sel.Entries)))
	var lines [][]byte
	end := int64(len(data))
	for _, e := range sel.Entries {
		i, ok := at[e.ID]
		if ok {
			inSources[i] = true
			if old := file[i]; bytes.Equal(old.Raw, e.Raw) || !records.Newer(e.Raw, old.Raw) {
				index = append(index, indexEntry{keyOf(e.ID), indexed{offset: old.Offset, sources: true}})
				continue
			}
		}
		lines = append(lines, e.Raw)
		index = append(index, indexEntry{keyOf(e.ID), indexed{offset: end, sources: true}})
		end += int64(len(e.Raw)) + 1
	}
	for i, r := range file {
		if !inSources[i] {
			index = append(index, indexEntry{keyOf(r.ID), indexed{offset: r.Offset}})
		}
	}
	st.Written = len(lines)
	if err := s.appendExport(tx, dir, target, lines); err != nil {
		return st, err
	}
	_ = os.Remove(markPath)
	m := exportMark{Generation: newGeneration(), Records: st.Records}
	if !wholeLines(data) || !s.markTarget(&m, target, jsonl.Checksum(data), int64(len(data)), lines) {
		return st, nil
	}
	for i, p := range src.Paths {
		mf, ok := markSource(p, before[i])
		if !ok {
			return st, nil
		}
		m.Sources = append(m.Sources, mf)
	}
	if writeExportIndex(exportIndexPath(markPath), index, m.Generation) == nil {
		saveExportMark(markPath, m)
	}
	return st, nil
}

// exportQuery selects what export writes: every record but git-queen's
// bookkeeping, which the seed's layout has no place for: a droid's
// presence records (records.IsPresence) and the places in the queue for
// paths that still wait (a reader of the seed's layout, or an earlier
// git-queen's hook, knows no status "waiting"; a place that ended is an
// expired reservation to them, and is written).
var exportQuery = Query{Query: jsonl.Query{Fields: []string{records.PresenceField, "status"},
	Static: func(f [][]byte) bool { return f[0] == nil },
	Keep:   func(f [][]byte) bool { return !jsonline.StringEquals(f[1], records.ReservationWaiting) }}}

// exportAppended is the export of what was appended to the sources since
// the mark m, when m still describes them and the file; ok is false when
// the full export must run instead (nothing was written then).
func (s *Store) exportAppended(tx *jsonl.Tx, target string, m exportMark, markPath string) (st ExportStats, ok bool, err error) {
	st = ExportStats{File: target}
	tail, targetNow, err := s.appendedSince(m.Target)
	if err != nil {
		return st, false, nil
	}
	next := exportMark{Generation: newGeneration(), Records: m.Records}
	var appended [][]byte
	for _, ms := range m.Sources {
		t, now, err := s.appendedSince(ms)
		if err != nil {
			return st, false, nil
		}
		next.Sources = append(next.Sources, now)
		appended = append(appended, t)
	}
	if len(tail) == 0 && slices.Equal(next.Sources, m.Sources) {
		st.Records = m.Records // nothing new anywhere
		if targetNow != m.Target {
			m.Target = targetNow // the same bytes, rewritten: prove them once
			saveExportMark(markPath, m)
		}
		return st, true, nil
	}
	ix, ok := openExportIndex(exportIndexPath(markPath))
	if !ok {
		return st, false, nil
	}
	defer ix.close()
	if ix.generation != m.Generation {
		return st, false, nil
	}
	f, err := os.Open(target)
	if err != nil {
		return st, false, nil
	}
	defer f.Close()
	v := &versionsOf{ix: ix, f: f, positions: map[idKey]int{}, changes: map[idKey]indexChange{}}

	// Lines another program appended to the file may be newer versions.
	entries, _ := jsonl.Select(tail, target, jsonl.Query{Versions: records.Versions})
	for _, e := range entries {
		k := keyOf(e.ID)
		old, was, ok, err := v.current(k, e.ID)
		if err != nil {
			return st, false, nil
		}
		if !ok || records.Newer(e.Raw, old) {
			was.offset = m.Target.Stat.Size + e.Offset
			v.set(k, was)
		}
	}
	best := map[string]jsonl.Entry{}
	for i, t := range appended {
		entries, _ := jsonl.Select(t, m.Sources[i].Path, jsonl.Query{Versions: records.Versions, Fields: exportQuery.Fields, Static: exportQuery.Static, Keep: exportQuery.Keep})
		for _, e := range entries {
			if cur, ok := best[e.ID]; !ok || supersedes(e, cur) {
				best[e.ID] = e
			}
		}
	}
	var lines [][]byte
	at := targetNow.Stat.Size
	for _, id := range slices.Sorted(maps.Keys(best)) {
		e, k := best[id], keyOf(id)
		old, was, ok, err := v.current(k, id)
		if err != nil {
			return st, false, nil
		}
		if !was.sources {
			next.Records++
		}
		if ok && (bytes.Equal(old, e.Raw) || !records.Newer(e.Raw, old)) {
			if !was.sources {
				was.sources = true
				v.set(k, was)
			}
			continue
		}
		lines = append(lines, e.Raw)
		v.set(k, indexed{offset: at, sources: true})
		at += int64(len(e.Raw)) + 1
	}
	st.Records, st.Written = next.Records, len(lines)
	if err := s.appendExport(tx, filepath.Dir(target), target, lines); err != nil {
		return st, true, err
	}
	_ = os.Remove(markPath)
	if !s.markTarget(&next, target, targetNow.CRC, targetNow.Stat.Size, lines) {
		return st, true, nil
	}
	if len(v.changes) == 0 {
		next.Generation = m.Generation
	} else if ix.update(v.changes, next.Generation) != nil {
		return st, true, nil
	}
	saveExportMark(markPath, next)
	return st, true, nil
}

// versionsOf reads the export file's current version of an id, by the
// index and the changes an export has made to it so far, which it keeps
// with the index positions its lookups found, for the index's update.
type versionsOf struct {
	ix        *exportIndex
	f         *os.File
	positions map[idKey]int
	changes   map[idKey]indexChange
}

// current returns the file's current version of the id whose key is k,
// and what the index says of it; ok is false when the file lacks the id.
// An index that points at another id's line is an error.
func (v *versionsOf) current(k idKey, id string) (raw []byte, was indexed, ok bool, err error) {
	if c, changed := v.changes[k]; changed {
		was = c.v
	} else {
		var pos int
		pos, was = v.ix.find(k)
		v.positions[k] = pos
		if pos < 0 {
			return nil, indexed{}, false, nil
		}
	}
	raw, ok, err = jsonl.RecordAt(v.f, was.offset, "", id)
	if err != nil {
		return nil, was, false, err
	}
	if !ok {
		return nil, was, false, errNotMarked
	}
	return raw, was, true, nil
}

// set gives the id whose key is k the entry was, after current looked it
// up.
func (v *versionsOf) set(k idKey, was indexed) {
	v.changes[k] = indexChange{pos: v.positions[k], v: was}
}

// appendExport appends lines to the export file target in dir.
func (s *Store) appendExport(tx *jsonl.Tx, dir, target string, lines [][]byte) error {
	if len(lines) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	recs := make([]any, len(lines))
	for i, l := range lines {
		recs[i] = l
	}
	// With the store's cache directory, the appends keep the file's index
	// there: the pre-commit hook proves a commit of the export only
	// appended without reading the committed bytes (see jsonl.OpenIndex).
	return tx.Append(&jsonl.Log{Path: target, Versions: records.Versions, Roots: s.WS.Roots(), NoSync: s.NoSync, OnRepair: s.OnRepair, CacheDir: s.CacheDir()}, recs...)
}

// markTarget sets m's file to target as it is after lines were appended to
// its first size bytes, whose checksum is crc. It is false when the file
// is not exactly that (another program wrote to it meanwhile).
func (s *Store) markTarget(m *exportMark, target string, crc uint32, size int64, lines [][]byte) bool {
	for _, l := range lines {
		crc = jsonl.ChecksumUpdate(crc, l)
		crc = jsonl.ChecksumUpdate(crc, []byte{'\n'})
		size += int64(len(l)) + 1
	}
	info, err := os.Stat(target)
	if err != nil {
		return false
	}
	stat, ok := jsonl.StatOf(info)
	if !ok || stat.Size != size {
		return false
	}
	m.Target = markedFile{Path: target, Stat: stat, CRC: crc}
	return true
}

// markSource marks the source at path as it was at info (taken before it
// was read), false when it was not a file of whole lines.
func markSource(path string, info os.FileInfo) (markedFile, bool) {
	if info == nil {
		return markedFile{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return markedFile{}, false
	}
	defer f.Close()
	return markFile(f, info)
}

func wholeLines(data []byte) bool { return len(data) == 0 || data[len(data)-1] == '\n' }
