// Package roster knows who is on the team: the droids a repository has
// seen, when each first wrote a record and when it was last seen (by any
// command or sync), and from which clones and worktrees. A droid that died
// holding paths shows as silent; doctor lists it, and reserve --steal and
// claim --steal judge by the same last sighting.
//
// A sighting is a presence record. It travels in the messages log, as a
// message from the droid to itself, read and deleted, with a "presence"
// field naming the clone and the worktree: every reader of messages (this
// release's, the previous one's, QueenBee's line-order readers) already
// passes over a deleted message, so presence rides the ledger without a
// change of the ledger's format. (A store of its own would need a
// directory of its own in the ledger's tree, and a clone of the previous
// release refuses a ledger commit whose tree holds a directory it does not
// know: its syncs would stop.) A droid writes a new version of its
// sighting at most once per Interval, so a read-only command costs a
// look at a small stamp file, and an idle sync finds nothing new to
// publish between those versions.
package roster

import (
	"encoding/json"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Interval is how often a droid's sighting moves at most: a command run
// within Interval of the last version writes nothing. It bounds how stale
// a "last seen" can be, and so how short a silence threshold may be
// (MinSilence).
const Interval = 5 * time.Minute

// MinSilence is the shortest silence threshold a team may configure:
// three Intervals, so that a droid that runs commands is never taken for
// silent between two of its sightings.
const MinSilence = 3 * Interval

// Subject is the subject of every presence record, for a person who reads
// the raw log.
const Subject = "presence"

// field is the field that makes a message a presence record.
const field = records.PresenceField

// Place is where a droid runs: its clone (host and git directory) and
// worktree.
type Place struct {
	Clone    string `json:"clone"`
	Worktree string `json:"worktree"`
}

// Sighting is the current version of one presence record: a droid seen
// in one place, first and last.
type Sighting struct {
	ID    string `json:"id"`
	Droid string `json:"droid"`
	Place
	First time.Time `json:"first_seen"`
	Last  time.Time `json:"last_seen"`
}

// presenceRecord is a presence record as written: a message to oneself,
// read and deleted, with the place.
type presenceRecord struct {
	records.Message
	Presence Place `json:"presence"`
}

// Store reads and writes the presence records of a store.
type Store struct {
	S *store.Store
}

// query selects the current version of every presence record. A message
// never gains or loses its presence field, so the filter is static.
var query = store.Query{Name: "presence-v1", Query: jsonl.Query{
	Fields: []string{field, "from", "created_at", "updated_at"},
	Static: func(f [][]byte) bool { return len(f[0]) > 0 && f[0][0] == '{' },
}}

// Sightings lists the current version of every presence record, in every
// source of the messages log (this clone's and what sync received).
func (s *Store) Sightings() ([]Sighting, error) {
	list, _, err := s.sightings()
	return list, err
}

func (s *Store) sightings() ([]Sighting, [][]byte, error) {
	sel, err := s.S.Select(records.MessagesFile, query)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Sighting, 0, len(sel.Entries))
	raws := make([][]byte, 0, len(sel.Entries))
	for _, e := range sel.Entries {
		var p Place
		var from string
		first, ok1 := records.ParseTime(e.Fields[2])
		last, ok2 := records.ParseTime(e.Fields[3])
		if json.Unmarshal(e.Fields[0], &p) != nil || json.Unmarshal(e.Fields[1], &from) != nil || !ok1 {
			continue // not one this package wrote: no sighting
		}
		if !ok2 || last.Before(first) {
			last = first
		}
		out = append(out, Sighting{ID: e.ID, Droid: from, Place: p, First: first, Last: last})
		raws = append(raws, e.Raw)
	}
	return out, raws, nil
}

// noteLockWait bounds how long Note waits for the repository lock: a
// sighting is a courtesy, and a read-only command (a runtime's guard)
// must not wait behind a long write for it. The next command tries again.
const noteLockWait = 200 * time.Millisecond

// Note records that droid was seen at place now, unless its sighting
// there moved less than Interval ago. It reports whether it wrote a
// version. It runs under the repository lock, waiting noteLockWait at
// most (a *jsonl.LockTimeoutError after that).
func (s *Store) Note(droid string, place Place) (bool, error) {
	if err := records.ValidateDroid(droid); err != nil {
		return false, err
	}
	wrote := false
	lock := s.S.WS.Lock()
	lock.Timeout = noteLockWait
	err := lock.Do(func(tx *jsonl.Tx) error {
		now := s.S.Now()
		list, raws, err := s.sightings()
		if err != nil {
			return err
		}
		mine := -1
		for i, x := range list {
			// A sighting here dated further ahead than clocks drift is
			// not believed (Believed), and its next version could only
			// be later still: it is left as it is, and a new record
			// begins.
			if _, ok := Believed(x.Last, now); ok && x.Droid == droid && x.Place == place && (mine < 0 || x.Last.After(list[mine].Last)) {
				mine = i
			}
		}
		var line []byte
		switch {
		case mine >= 0 && now.Sub(list[mine].Last) < Interval:
			return nil // seen lately: nothing to write
		case mine >= 0:
			next, err := jsonl.SetFields(raws[mine], jsonl.Field{Name: "updated_at", Value: records.Successor(now, raws[mine])})
			if err != nil {
				return err
			}
			if line, err = records.CheckedNext(records.MessagesFile, raws[mine], next); err != nil {
				return err
			}
		default:
			rec := presenceRecord{Message: records.Message{ID: ids.NewMessage(), CreatedAt: now, UpdatedAt: &now, UpdatedBy: droid,
				From: droid, To: droid, Subject: Subject, Importance: records.ImportanceLow, Read: true, ReadAt: &now, Deleted: true},
				Presence: place}
			rec.ThreadID = rec.ID
			if line, err = records.CheckedNew(records.MessagesFile, rec); err != nil {
				return err
			}
		}
		wrote = true
		return tx.Append(s.S.Log(records.MessagesFile), line)
	})
	return wrote, err
}
