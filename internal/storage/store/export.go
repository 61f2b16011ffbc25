package store

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// ExportStats says what an export wrote to one file.
type ExportStats struct {
	File string `json:"file"`
	// Records is how many records the store holds (of those only
	// Withheld holds, none); Written how many versions went to the file
	// (the rest it had already).
	Records int `json:"records"`
	Written int `json:"written"`
	// Withheld are the versions the export left out because validate, and
	// so the pre-commit hook, would refuse them.
	Withheld []Withheld `json:"withheld,omitempty"`
}

// Withheld is a current version that breaks a rule every version obeys
// (records.CheckVersion): a sync of a build before it set such lines aside
// took them into a received log, where they stay. Written to the file, one
// made every commit of the export refused; the file keeps what it had of
// the id instead.
type Withheld struct {
	ID     string `json:"id"`
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	// KeptIn is the log that holds the line.
	KeptIn string `json:"kept_in"`
}

// exportable says whether e, a current version for the file st.File, may
// be written; one that breaks a rule is noted in st instead. Only the lines
// an export writes are checked: what it skips it does not read again.
func (st *ExportStats) exportable(e jsonl.Entry) bool {
	re := records.CheckVersion(filepath.Base(st.File), e.Raw)
	if re != nil {
		st.Withheld = append(st.Withheld, Withheld{ID: e.ID, Rule: re.Rule, Reason: re.Msg, KeptIn: e.File})
	}
	return re == nil
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
	if err := s.outsideStore(target); err != nil {
		return ExportStats{File: target}, err
	}
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
	return s.exportAll(tx, target, src, markPath)
}

// outsideStore refuses an export target that is, or lies in, the live
// store, through symbolic links too (a committed .beads/ file linked to
// .git/queen/): the export would append other clones' records to this
// clone's own log, which sync then publishes as this clone's writes. A
// link that leads nowhere is refused as well: writing it would create
// whatever it names.
func (s *Store) outsideStore(target string) error {
	if _, err := os.Stat(target); errors.Is(err, os.ErrNotExist) {
		if info, lerr := os.Lstat(target); lerr == nil && info.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link to nothing; export to a plain file", target)
		}
	}
	real, store := links.Resolve(target), links.Resolve(s.WS.Dir)
	if jsonl.Within(real, store) {
		return fmt.Errorf("%s is %s in the live store; export to a file outside %s", target, real, store)
	}
	// A hard link is the same file under another name (ln
	// .git/queen/queen_reservations.jsonl .beads/): no path says so.
	if info, err := os.Stat(real); err == nil {
		for _, name := range records.LogFiles() {
			for _, log := range s.Logs(name) {
				if li, err := os.Stat(log.Path); err == nil && os.SameFile(info, li) {
					return fmt.Errorf("%s is %s of the live store under another name (a hard link); export to a file of its own", target, log.Path)
				}
			}
		}
	}
	return nil
}

// exportedByMark is called when an export read only what was appended;
// tests count it.
var exportedByMark = func(target string) {}

// exportAll compares every current version with the file's, and leaves a
// mark for the next export.
func (s *Store) exportAll(tx *jsonl.Tx, target string, src *Sources, markPath string) (ExportStats, error) {
	st := ExportStats{File: target}
	// The sources as their indexes cover them before the selection (an
	// index another program's write left stale is rebuilt): what is
	// appended after is the next export's to look at.
	var m exportMark
	marked := true
	for _, p := range src.Paths {
		tx.Reindex(s.logAt(p))
		ms, ok := s.markOf(p)
		marked = marked && ok
		m.Sources = append(m.Sources, ms)
	}
	sel, err := s.SelectFrom(src, exportQuery)
	if err != nil {
		return st, err
	}
	st.Records = len(sel.Entries)
	data, err := regular.Read(target, 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return st, err
	}
	file := jsonl.Materialize(data, target, "", records.Versions) // empty when missing
	inSources := make(map[string]bool, len(sel.Entries))
	var lines []any // each a line, as tx.Append takes it
	for _, e := range sel.Entries {
		inSources[e.ID] = true
		old, had := file.Get(e.ID)
		switch {
		case had && (bytes.Equal(old.Raw, e.Raw) || !records.Newer(e.Raw, old.Raw)):
		case st.exportable(e):
			lines = append(lines, e.Raw)
		case !had:
			st.Records-- // counted where the file holds it
		}
	}
	var fileOnly []uint64
	for _, r := range file.Records {
		if !inSources[r.ID] {
			fileOnly = append(fileOnly, hashID(r.ID))
		}
	}
	m.FileOnly = sortedHashes(fileOnly)
	st.Written, m.Records = len(lines), st.Records
	return st, s.writeExport(tx, target, lines, m, marked, markPath)
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

// exportLines selects, of lines read alone (a source's tail since the
// mark, one current version), what exportQuery sees of them, before its
// Keep: the export by mark applies Keep to each source's current version.
var exportLines = jsonl.Query{Versions: records.Versions, Fields: exportQuery.Fields, Static: exportQuery.Static}

// exportAppended is the export of what was appended to the sources since
// the mark m, when the logs' indexes vouch that m still describes them and
// the file; ok is false when the full export must run instead (nothing
// was written then).
func (s *Store) exportAppended(tx *jsonl.Tx, target string, m exportMark, markPath string) (st ExportStats, ok bool, err error) {
	st = ExportStats{File: target}
	lines, next, ok := s.appendedLines(&st, target, m)
	if !ok {
		return st, false, nil
	}
	st.Records, st.Written = next.Records, len(lines)
	if slices.Equal(next.Sources, m.Sources) {
		return st, true, nil // nothing new anywhere: the mark stands
	}
	return st, true, s.writeExport(tx, target, lines, next, true, markPath)
}

// appendedLines are the lines (as tx.Append takes them) an export
// appends to the file target for what the sources gained since the mark
// m, and the next mark but its file's part (what it withholds goes to
// st); ok is false when the indexes
// do not vouch for m. An id the sources gained lines of is judged, as the
// full export judges it, by each source's current version, which its
// index places: the newest line appended is not the current version when
// it is stale, and the filter keeps or drops the current one. The file's
// index is released before the append maps it again.
func (s *Store) appendedLines(st *ExportStats, target string, m exportMark) (lines []any, next exportMark, ok bool) {
	f, ix, ok := jsonl.OpenWithIndex(s.CacheDir(), target)
	if !ok {
		return nil, next, false
	}
	defer f.Close()
	defer ix.Close()
	// Exactly the marked bytes: not written since by another program, nor
	// by an export killed before its mark.
	if size, _, crc := ix.Covered(); size != m.Target.Size || crc != m.Target.CRC {
		return nil, next, false
	}
	next.Records = m.Records
	changed := map[string]bool{}
	var sources []indexedFile
	defer func() {
		for _, src := range sources {
			src.close()
		}
	}()
	for _, ms := range m.Sources {
		tail, now, src, ok := s.appendedSince(ms)
		if !ok {
			return nil, next, false
		}
		entries, _ := jsonl.Select(tail, ms.Path, exportLines)
		src.tail = make(map[string]jsonl.Entry, len(entries))
		for _, e := range entries {
			e.Offset += ms.Size
			src.tail[e.ID] = e
			changed[e.ID] = true
		}
		sources = append(sources, src) // closed on the way out
		next.Sources = append(next.Sources, now)
	}
	var counted, uncounted []uint64 // ids only in the file that a source now holds, and the reverse
	for _, id := range slices.Sorted(maps.Keys(changed)) {
		e, kept, ok := currentExported(sources, id)
		if !ok {
			return nil, next, false
		}
		old, had, ok := ix.Get(f, "", id)
		if !ok {
			return nil, next, false
		}
		write := kept && (!had || supersedes(e, old))
		if write && !st.exportable(e) {
			write, kept = false, had // the count counts what the file holds
		}
		// The sources held, and the count counted, every id the file holds
		// but those only in it.
		only := m.FileOnly.has(hashID(id))
		switch wasCounted := had && !only; {
		case kept && !wasCounted:
			next.Records++
			if only {
				counted = append(counted, hashID(id))
			}
		case !kept && wasCounted:
			next.Records--
			uncounted = append(uncounted, hashID(id))
		}
		if write {
			lines = append(lines, e.Raw)
		}
	}
	next.FileOnly = m.FileOnly
	if len(counted)+len(uncounted) > 0 {
		gone := sortedHashes(counted)
		next.FileOnly = slices.DeleteFunc(slices.Clone(m.FileOnly), gone.has)
		next.FileOnly = sortedHashes(append(next.FileOnly, uncounted...))
	}
	return lines, next, true
}

// currentExported is what the full export selects of id: of each
// source's current version, which its index places, those exportQuery
// keeps, the newest; kept is false when it keeps none, ok false when an
// index cannot be read or places another line, or when a current
// version is one the full export skips as a line (a presence record's,
// of an id whose other versions are not): the full export then picks
// an older line, which only a read of the source finds. A current
// version appended since the mark is the one read with the tail.
func currentExported(sources []indexedFile, id string) (e jsonl.Entry, kept, ok bool) {
	for _, src := range sources {
		offset, _, found, err := src.ix.Lookup(id)
		if err != nil {
			return e, false, false
		}
		if !found {
			continue
		}
		c, ok := src.tail[id]
		if !ok || c.Offset != offset {
			raw, ok, err := jsonl.RecordAt(src.f, offset, "", id)
			if err != nil || !ok {
				return e, false, false
			}
			selected, _ := jsonl.Select(raw, src.f.Name(), exportLines)
			if len(selected) != 1 {
				return e, false, false
			}
			c = selected[0]
		}
		if exportQuery.Keep(c.Fields) && (!kept || supersedes(c, e)) {
			e, kept = c, true
		}
	}
	return e, kept, true
}

// writeExport appends lines to the export file target and, when marked
// (the sources' part of m is known), leaves the mark m of it for the next
// export, the file as its index covers it after the append (rebuilt if
// nothing was appended to a file another program wrote). The old mark goes
// first: a kill in between leaves none, and the next export is full. With
// the store's cache directory, the appends keep the file's index there:
// the pre-commit hook proves a commit of the export only appended without
// reading the committed bytes (see jsonl.OpenIndex).
func (s *Store) writeExport(tx *jsonl.Tx, target string, lines []any, m exportMark, marked bool, markPath string) error {
	_ = os.Remove(markPath)
	if len(lines) == 0 {
		tx.Reindex(s.logAt(target))
	} else if err := tx.Append(s.logAt(target), lines...); err != nil {
		return err
	}
	var ok bool
	if m.Target, ok = s.markOf(target); ok && marked {
		saveExportMark(markPath, m)
	}
	return nil
}
