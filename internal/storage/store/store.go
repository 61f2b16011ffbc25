// Package store is a store directory as the domain stores see it: one lock
// for every write, and reads that see the union of every source of a log.
//
// The live store has up to three sources per log: the records this clone
// wrote (the log itself), the records other clones wrote that
// `git queen sync` brought in (received/), and, for a caller that asks for
// it (reservations), what a `git fetch` brought into the remote-tracking
// ledger since the last sync. A plain directory store has one. Where two
// sources (or two lines of one) disagree about an id, the version
// records.Newer prefers wins, wherever its line lies.
package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// ReceivedDir is the live store's directory of records other clones wrote.
const ReceivedDir = "received"

// Store is the store directory of one workspace.
type Store struct {
	WS *workspace.Workspace
	// Clock is the time source; nil means time.Now.
	Clock func() time.Time
	// NoSync skips fsync after appends (tests and benchmarks).
	NoSync bool
	// OnRepair hears about torn tails set aside before an append.
	OnRepair func(jsonl.Repair)
	// Fetched, when set, lists extra sources of a log that are not part of
	// the store itself (the remote-tracking ledger's records since the last
	// sync). Reads of reservations use it; nil means none. Its files are
	// written once and never appended to: a read indexes each once.
	Fetched func(name string) ([]string, error)
}

// Now is the current time as git-queen writes it (UTC, milliseconds).
func (s *Store) Now() time.Time {
	if s.Clock == nil {
		return records.Now(time.Now)
	}
	return records.Now(s.Clock)
}

// Log is the log this clone writes, in this workspace's store directory.
func (s *Store) Log(name string) *jsonl.Log { return s.logAt(s.WS.Path(name)) }

// ReceivedLog is the log of records other clones wrote, as sync applies
// them; only the live store has one.
func (s *Store) ReceivedLog(name string) *jsonl.Log { return s.logAt(ReceivedPath(s.WS, name)) }

// logAt is the log at path, under the store's lock, roots and options: a
// log of the store, or an export file, whose index the store's appends
// keep in its cache directory too.
func (s *Store) logAt(path string) *jsonl.Log {
	return &jsonl.Log{Path: path, Versions: records.Versions, Roots: s.WS.Roots(), Fenced: s.WS.Fenced(), Lock: s.WS.Lock(), NoSync: s.NoSync, OnRepair: s.OnRepair, CacheDir: s.CacheDir()}
}

// ReceivedPath is where the received copy of the log name lives.
func ReceivedPath(ws *workspace.Workspace, name string) string {
	return filepath.Join(ws.Dir, ReceivedDir, name)
}

// Logs are the logs of the store that commands rewrite (compact, archive):
// the one this clone writes, and the received one when there is one.
func (s *Store) Logs(name string) []*jsonl.Log {
	logs := []*jsonl.Log{s.Log(name)}
	if s.WS.Live {
		logs = append(logs, s.ReceivedLog(name))
	}
	return logs
}

// Update runs fn under the repository-wide lock. Reads inside fn see every
// write that finished before it, and nothing can be appended by anyone else
// until fn returns: check-then-append is atomic across processes and
// worktrees.
func (s *Store) Update(fn func(tx *jsonl.Tx) error) error {
	return s.WS.Lock().Do(fn)
}

// Sources are the files a read of one log takes the union of: the log
// itself first, then the others that exist.
type Sources struct {
	Paths []string
}

// Count is how many sources a read unions.
func (src *Sources) Count() int { return len(src.Paths) }

// Sources finds the sources of the log name, without the fetched ones.
func (s *Store) Sources(name string) (*Sources, error) {
	src := &Sources{Paths: []string{s.WS.Path(name)}}
	if s.WS.Live {
		p := ReceivedPath(s.WS, name)
		if _, err := os.Stat(p); err == nil {
			src.Paths = append(src.Paths, p)
		}
	}
	return src, nil
}

// SourcesWithFetched is Sources plus what Fetched lists: for the reads that
// must see a remote's records as soon as git fetched them (reservations).
func (s *Store) SourcesWithFetched(name string) (*Sources, error) {
	src, err := s.Sources(name)
	if err != nil || s.Fetched == nil {
		return src, err
	}
	extra, err := s.Fetched(name)
	if err != nil {
		return nil, err
	}
	for _, p := range extra {
		// Written once, never appended to: indexed once, for the union
		// cache (see jsonl.ReadUnionCache).
		s.logAt(p).IndexWrittenOnce()
	}
	src.Paths = append(src.Paths, extra...)
	return src, nil
}

// Selection is the union of one log's sources.
type Selection struct {
	// Entries holds the latest version of each selected id, sorted by id
	// (ULIDs sort by creation time).
	Entries []jsonl.Entry
	// Problems are bad lines found in any source.
	Problems []jsonl.Problem
	// Sources lists the files that were read.
	Sources []string
}

// Select reads the current version of each id across every source of the
// log and returns those q keeps: within a source and between sources, the
// version records.Newer prefers, wherever its line lies.
//
// Each source is filtered on its own, so with more than one source q.Keep
// must keep every version that could be newer than a kept version
// elsewhere: a filter on state that changes (a reservation's release) must
// also keep recent versions in the other state. q.Static may filter on what
// never changes (a recipient).
func (s *Store) Select(name string, q Query) (*Selection, error) {
	src, err := s.Sources(name)
	if err != nil {
		return nil, err
	}
	return s.SelectFrom(src, q)
}

// SelectFrom is Select over sources already found, for a caller that
// chooses its query by how many there are.
func (s *Store) SelectFrom(src *Sources, q Query) (*Selection, error) {
	q = q.withVersions()
	if src.Count() > 1 {
		// The union below compares versions by their bytes.
		q.Lean = false
	}
	union := "" // the union cache's path, when there is one
	var held []*jsonl.UnionSource
	if src.Count() > 1 && q.Name != "" {
		// What the sources hold, asked once for the cache read and, on a
		// miss, for the answer saved: taken before the sources are read,
		// so that a source appended to while it is read is not remembered
		// as it is now with the old answer. A source no index vouches for
		// means no union cache, unless its index can be rebuilt now
		// (another program appended to it).
		var ok bool
		held, ok = jsonl.UnionHeld(s.CacheDir(), src.Paths)
		if !ok && s.reindexIfFree(src.Paths) {
			held, ok = jsonl.UnionHeld(s.CacheDir(), src.Paths)
		}
		if ok {
			union = filepath.Join(s.CacheDir(), queryHash(strings.Join(src.Paths, "\x00"), q.Name)+".union")
			if entries, problems, hit := jsonl.ReadUnionCache(union, src.Paths, held, q.Query, q.Final); hit {
				return &Selection{Entries: entries, Problems: problems, Sources: src.Paths}, nil
			}
		}
	}
	sel := &Selection{Sources: src.Paths}
	lists := make([][]jsonl.Entry, 0, src.Count())
	for _, path := range src.Paths {
		entries, problems, err := s.selectSource(path, q)
		if err != nil {
			return nil, err
		}
		sel.Problems = append(sel.Problems, problems...)
		lists = append(lists, entries)
	}
	sel.Entries = unite(lists)
	if q.Final != nil {
		sel.Entries = slices.DeleteFunc(sel.Entries, func(e jsonl.Entry) bool { return !q.Final(e.Fields) })
	}
	sortByID(sel.Entries)
	if union != "" {
		jsonl.SaveUnionCache(union, src.Paths, held, q.Query, sel.Entries, sel.Problems)
	}
	return sel, nil
}

// selectSource selects from one source, through its selection cache
// when q has a name.
func (s *Store) selectSource(path string, q Query) ([]jsonl.Entry, []jsonl.Problem, error) {
	if cache := s.queryFile(path, q, ".idx"); cache != "" {
		return s.logAt(path).SelectCached(q.Query, cache)
	}
	return jsonl.SelectFile(path, q.Query)
}

// reindexIfFree rebuilds the indexes of the logs at paths that do not
// match them, if the store's lock is free at once (see
// jsonl.Log.ReindexIfFree), and reports whether it held it for each.
func (s *Store) reindexIfFree(paths []string) bool {
	all := true
	for _, p := range paths {
		all = s.logAt(p).ReindexIfFree() && all
	}
	return all
}

// supersedes reports whether e, a version of cur's id from another
// source, is the newer one. The same version in several copies is the
// common case, and comparing the bytes is cheaper than finding the
// versions.
func supersedes(e, cur jsonl.Entry) bool {
	return !bytes.Equal(e.Raw, cur.Raw) && records.Newer(e.Raw, cur.Raw)
}

// Query is a jsonl.Query with a name, which identifies its selection
// caches. A query whose answer depends on a droid must put the droid in its
// name, and queries with different Fields or Final need different names.
// Queries without a name are not cached.
type Query struct {
	jsonl.Query
	Name string
	// Final, when set, filters the union's winners (the newest version of
	// each id): "active now", where Keep must also keep what could
	// supersede an active version in another source. It must be monotone
	// in time, like Keep. With several sources, the winners Final keeps
	// are cached as long as no source changes.
	Final func(fields [][]byte) bool
}

// Recent selects the current versions written at since or later (by
// their version fields) whose field flag is true, cached under name:
// keeping by time is monotone (what is too old at since is too old at any
// later since), so a read costs what was written since the cache's and
// what it keeps, not the history; and it is safe across sources, as a
// version newer than a kept one was written later still.
func Recent(name string, since time.Time, flag string) Query {
	fields := append(slices.Clone(records.Versions.Fields), flag)
	at := len(fields) - 1
	return Query{
		Name:  name,
		Query: jsonl.Query{Fields: fields, Keep: func(f [][]byte) bool { return !records.Versions.Time(f[:at]).Before(since) }, At: since},
		Final: func(f [][]byte) bool { return string(f[at]) == "true" },
	}
}

// withVersions is q comparing versions as QueenBee records do, unless it
// says otherwise: every store log holds QueenBee records.
func (q Query) withVersions() Query {
	if q.Versions == nil {
		q.Versions = records.Versions
	}
	return q
}

// CacheDir holds the selection caches.
func (s *Store) CacheDir() string { return s.WS.CacheDir() }

// queryFile is where a cache of the query q over the log at path is kept,
// named by both and ending in ext (".idx" for a selection's); "" for a
// query with no name.
func (s *Store) queryFile(path string, q Query, ext string) string {
	if q.Name == "" {
		return ""
	}
	return filepath.Join(s.CacheDir(), queryHash(links.Entry(path), q.Name)+ext)
}

func queryHash(source, query string) string {
	sum := sha256.Sum256([]byte(source + "\x00" + query))
	return hex.EncodeToString(sum[:8])
}
