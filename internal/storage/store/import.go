package store

import (
	"errors"
	"fmt"
	"os"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// ImportStats says what an import did with the lines it was given.
type ImportStats struct {
	File string `json:"file"`
	// Imported lines were appended; Present ones the store already held
	// byte for byte; Older ones are versions older than the store's current
	// version of their record (history, not state).
	Imported int `json:"imported"`
	Present  int `json:"present"`
	Older    int `json:"older"`
	// OtherParties are later versions that name other parties than the
	// store's current version of their record (rule parties): left out,
	// as a sync leaves them.
	OtherParties int `json:"other_parties"`
	// Unreadable lines are not records; they are left where they were.
	Unreadable int `json:"unreadable"`
}

// ImportFileIn brings the lines of a log file written by another setup
// (the tracked .beads/queen_*.jsonl of git-queen before the live store)
// into the log name, under the lock the caller holds. It is idempotent: a
// line any source of the store, or its archive, already holds is skipped
// (an export's lines that archive moved since must not come back), and so
// is a version older than the store's (or its archive's) current one of its id,
// or naming other parties (records.SameParties). Lines that are not
// records are counted and left in the file they came from. With dryRun it
// only counts.
func (s *Store) ImportFileIn(tx *jsonl.Tx, name, path string, dryRun bool) (ImportStats, error) {
	st := ImportStats{File: path}
	data, err := regular.Read(path, 0)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	sel, err := s.Select(name, Query{})
	if err != nil {
		return st, err
	}
	current := make(map[string][]byte, len(sel.Entries))
	for _, e := range sel.Entries {
		current[e.ID] = e.Raw
	}
	have := map[string]bool{}
	keys := []string{jsonline.DefaultKey}
	vals := make([][]byte, 1)
	for _, p := range sel.Sources {
		for i, f := range []string{p, jsonl.ArchivePath(p)} {
			b, err := regular.Read(f, 0)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return st, err
			}
			for line := range jsonline.Lines(b) {
				have[string(line.Raw)] = true
				// An archived record's version counts as current:
				// compact may have dropped the older one an export
				// holds.
				if i == 1 && jsonline.ObjectFields(line.Raw, keys, vals) == nil {
					if id, ok := jsonline.String(vals[0]); ok && (current[id] == nil || records.Newer(line.Raw, current[id])) {
						current[id] = line.Raw
					}
				}
			}
		}
	}
	var fresh []any
	for line := range jsonline.Lines(data) {
		raw := line.Raw
		switch {
		case line.Blank():
			continue
		case jsonline.ObjectFields(raw, keys, vals) != nil:
			st.Unreadable++ // not a record (or a torn tail): it stays where it is
			continue
		case have[string(raw)]:
			st.Present++
			continue
		}
		if id, ok := jsonline.String(vals[0]); ok && id != "" {
			cur, ok := current[id]
			if ok && !records.Newer(raw, cur) {
				st.Older++
				continue
			}
			if ok && !records.SameParties(name, cur, raw) {
				st.OtherParties++
				continue
			}
			current[id] = raw
		}
		have[string(raw)] = true
		fresh = append(fresh, raw)
	}
	if !dryRun && len(fresh) > 0 {
		if err := tx.Append(s.Log(name), fresh...); err != nil {
			return st, fmt.Errorf("import %s: %w", path, err)
		}
	}
	st.Imported = len(fresh)
	return st, nil
}
