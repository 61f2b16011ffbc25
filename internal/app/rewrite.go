package app

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// CompactRequest asks for nothing: compact rewrites every log of the store.
type CompactRequest struct{}

// ArchiveRequest says which records are old enough to move to the archive
// files.
type ArchiveRequest struct {
	Before string `json:"before"` // a date, an RFC 3339 time, or a duration back from now (30d)
}

// RewrittenLog is what compact or archive did to one log.
type RewrittenLog struct {
	File string `json:"file"`
	jsonl.RewriteStats
	// Archive is the file archive moved the log's old records to.
	Archive string `json:"archive,omitempty"`
}

// RewriteResult lists the logs compact or archive rewrote: this clone's
// and, in the live store, those sync received.
type RewriteResult struct {
	Files []RewrittenLog `json:"files"`
}

// Compact drops the versions a later version of the same id supersedes
// from every log of the store. The ledger keeps every version, and sync
// carries on where it was.
var Compact = UseCase[CompactRequest, *RewriteResult]{Name: "compact", run: func(e *Env, _ CompactRequest) (*RewriteResult, error) {
	return rewriteLogs(e, func(*store.Store) rewriter { return (*jsonl.Tx).Compact }, false)
}}

// Archive moves every version of the records that ended before the cutoff
// (messages created before it; assignments and reservations that stopped
// being active before it) to <log>_archive.jsonl, written and synced
// before the log is rewritten.
var Archive = UseCase[ArchiveRequest, *RewriteResult]{Name: "archive", run: archive}

func archive(e *Env, r ArchiveRequest) (*RewriteResult, error) {
	before, err := ParseSince(e.Now(), r.Before)
	if err != nil {
		return nil, usagef("", "%s: %v", wording.Param("before"), err)
	}
	return rewriteLogs(e, func(s *store.Store) rewriter {
		old := map[string]func(jsonl.Record) bool{
			records.MessagesFile:     messages.Archivable(before),
			records.AssignmentsFile:  assignments.Archivable(before),
			records.ReservationsFile: reservations.Archivable(before, s.Now()),
		}
		judged := map[string]bool{} // the stores whose judgement oldAcrossLogs made
		return func(tx *jsonl.Tx, log *jsonl.Log, marks []int64) (jsonl.RewriteStats, []int64, error) {
			name := filepath.Base(log.Path)
			if name != records.MessagesFile && !judged[name] {
				// Judged once per store, before its first log (this
				// clone's) is rewritten.
				judge, err := oldAcrossLogs(s, name, old[name])
				if err != nil {
					return jsonl.RewriteStats{}, marks, err
				}
				old[name], judged[name] = judge, true
			}
			return tx.Archive(log, old[name], marks)
		}
	}, true)
}

// oldAcrossLogs judges each record of the store name by its newest version
// in all of the store's logs, this clone's and the received one: a record
// whose versions lie in both (another clone's reservation this clone
// released with --force or stole, an assignment it took over) moves from
// both or stays in both. Judged log by log, the release moved and the
// older active version left in the other log was current again. The
// archives count too, so that an archive cut off between the two logs is
// finished by the next; of an archive, which only grows, only the versions
// of records the logs still hold are read into memory. Messages need none
// of this: they are judged by created_at, which every version of one
// message shares.
func oldAcrossLogs(s *store.Store, name string, old func(jsonl.Record) bool) (func(jsonl.Record) bool, error) {
	versions, err := versionsAcrossLogs(s, name)
	if err != nil || versions == nil {
		return old, err
	}
	moving := map[string]bool{}
	for _, e := range versions {
		if old(jsonl.Record{ID: e.ID, Raw: e.Raw, Line: e.Line}) {
			moving[e.ID] = true
		}
	}
	idField := []string{jsonline.DefaultKey}
	return func(r jsonl.Record) bool {
		var raw [1][]byte
		if jsonline.ObjectFields(r.Raw, idField, raw[:]) != nil {
			return false
		}
		id, ok := jsonline.String(raw[0])
		return ok && moving[id]
	}, nil
}

// rewriter rewrites one log under the lock, from the marks sync keeps of
// it (nil in a store without a ledger).
type rewriter = func(tx *jsonl.Tx, log *jsonl.Log, marks []int64) (jsonl.RewriteStats, []int64, error)

// rewriteLogs runs the rewriter made for the store over each of its logs:
// through the ledger's syncer in the live store, which records first what
// this clone wrote and moves its marks with the rewrite, else (a plain
// directory store, a repository without a ledger) under the store's lock.
func rewriteLogs(e *Env, rewriterFor func(*store.Store) rewriter, archived bool) (*RewriteResult, error) {
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	rewrite := rewriterFor(s)
	var done []ledgersync.Rewritten
	sy, err := e.OpenSyncer(s, e.Identity())
	switch {
	case err == nil:
		defer sy.Close()
		if done, err = sy.Rewrite(rewrite); err != nil {
			return nil, err
		}
	case s.WS.Live && !errors.Is(err, ledger.ErrUnsupported):
		return nil, err
	default: // a plain directory store, or a repository without a ledger (SHA-256)
		err := s.Update(func(tx *jsonl.Tx) error {
			for _, name := range records.LogFiles() {
				for _, log := range s.Logs(name) {
					st, _, err := rewrite(tx, log, nil)
					if err != nil {
						return err
					}
					done = append(done, ledgersync.Rewritten{Log: log, Stats: st})
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	res := &RewriteResult{}
	for _, d := range done {
		if _, err := os.Stat(d.Log.Path); err != nil && d.Stats.LinesBefore == 0 {
			continue // a log that was never written
		}
		f := RewrittenLog{File: d.Log.Path, RewriteStats: d.Stats}
		if archived {
			f.Archive = jsonl.ArchivePath(d.Log.Path)
		}
		res.Files = append(res.Files, f)
	}
	return res, nil
}

// versionsAcrossLogs is the newest version, in the logs of the store name
// and their archives, of each record the logs hold; nil when there is one
// file to read. An archive only grows: of it, only the versions of
// records the logs still hold are kept in memory, not the whole history.
func versionsAcrossLogs(s *store.Store, name string) ([]jsonl.Entry, error) {
	logs, all := &store.Sources{}, &store.Sources{}
	for _, log := range s.Logs(name) {
		if exists(log.Path) {
			logs.Paths = append(logs.Paths, log.Path)
			all.Paths = append(all.Paths, log.Path)
		}
		if archive := jsonl.ArchivePath(log.Path); exists(archive) {
			all.Paths = append(all.Paths, archive)
		}
	}
	if len(all.Paths) < 2 || len(logs.Paths) == 0 {
		return nil, nil
	}
	inLogs, err := s.SelectFrom(logs, store.Query{})
	if err != nil {
		return nil, err
	}
	held := make(map[string]bool, len(inLogs.Entries))
	for _, e := range inLogs.Entries {
		held[e.ID] = true
	}
	sel, err := s.SelectFrom(all, store.Query{Query: jsonl.Query{Fields: []string{jsonline.DefaultKey}, Static: func(f [][]byte) bool {
		id, ok := jsonline.String(f[0])
		return ok && held[id]
	}}})
	if err != nil {
		return nil, err
	}
	return sel.Entries, nil
}

// exists says whether a file is at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
