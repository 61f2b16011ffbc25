package ledgersync

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// knownVersions answers, for the ids of incoming versions of one log,
// when the newest version of each that this clone holds was written, so
// that an older version never becomes the last line of its id in
// received/, where readers take the newest as current. It asks the
// indexes the logs' writers keep (jsonl.OpenIndex), not an index of its
// own: every version the local ledger holds and a merge would weigh is
// in one of them, as this clone's own log (recorded before a merge), as
// received (applied by a merge), or as either's archive (moved there by
// archive, with every version of its record). What the ledger holds
// beside those is older than one of them (not applied for that), or
// broke a rule (never applied, never counted). A log whose index is
// missing or stale has it rebuilt under the lock (jsonl.Tx.Reindex), as
// its next append would; one that still has none is read, once a merge.
type knownVersions struct {
	tx *jsonl.Tx
	s  *store.Store
	// open are each log file's logs that exist, with their indexes.
	open map[string][]*knownLog
}

// knownLog is one log that knownVersions asks: through its index, or
// (with none to be had) by loading it, once a merge.
type knownLog struct {
	log *jsonl.Log
	ix  *jsonl.Index
	// times is, once the log had to be loaded, the version time and
	// place of each id's current version in it (ids without one left
	// out).
	times map[string]heldAt
	// f is the log, once a version of it had to be read (see file).
	f *os.File
}

// heldAt is when an id's current version in a log was written, and
// where in the log it is.
type heldAt struct {
	at     time.Time
	offset int64
}

func newKnownVersions(tx *jsonl.Tx, s *store.Store) *knownVersions {
	return &knownVersions{tx: tx, s: s, open: map[string][]*knownLog{}}
}

// logsOf are the logs that hold versions of file's records: this clone's,
// the received one, and their archives.
func (k *knownVersions) logsOf(file string) []*jsonl.Log {
	own, received := k.s.Log(file), k.s.ReceivedLog(file)
	return []*jsonl.Log{own, received, own.ArchiveLog(), received.ArchiveLog()}
}

// newest returns, for each of ids that a log of file holds with a version
// time, the newest such time. The logs' indexes are opened on the first
// question about file, before the merge appends to any of them, and a
// log's index that does not cover it is rebuilt then, as its next append
// would.
func (k *knownVersions) newest(file string, ids []string) (map[string]time.Time, error) {
	logs, ok := k.open[file]
	if !ok {
		for _, l := range k.logsOf(file) {
			info, err := os.Stat(l.Path)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			ix, ok := jsonl.OpenIndex(l.CacheDir, l.Path, info) // nil when !ok
			if !ok {
				k.tx.Reindex(l)
				ix, _ = jsonl.OpenIndex(l.CacheDir, l.Path, info)
			}
			logs = append(logs, &knownLog{log: l, ix: ix})
		}
		k.open[file] = logs
	}
	out := map[string]time.Time{}
	for _, kl := range logs {
		if err := kl.newest(ids, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newest notes in out the newest version time the log holds of each of
// ids, where it is newer than out's.
func (kl *knownLog) newest(ids []string, out map[string]time.Time) error {
	note := func(id string, at time.Time) {
		if had, ok := out[id]; !ok || at.After(had) {
			out[id] = at
		}
	}
	if kl.ix != nil {
		found := map[string]time.Time{}
		for _, id := range ids {
			offset, nanos, ok, err := kl.ix.Lookup(id)
			if err != nil { // damaged: removed, for the next append to rebuild
				kl.ix.Close()
				kl.ix = nil
				break
			}
			if ok && nanos != jsonl.NoVersionTime {
				at, exact := jsonl.VersionTimeOf(nanos)
				if !exact {
					// A time the index holds to the second only
					// (before 1823, after 2116): the version's own.
					if at, err = kl.timeAt(offset); err != nil {
						kl.ix.Close()
						kl.ix = nil
						break
					}
				}
				found[id] = at
			}
		}
		if kl.ix != nil {
			for id, at := range found {
				note(id, at)
			}
			return nil
		}
	}
	if kl.times == nil {
		st, err := kl.log.Load()
		if err != nil {
			return err
		}
		kl.times = make(map[string]heldAt, st.Len())
		for _, rec := range st.Records {
			if at := records.VersionTime(rec.Raw); !at.IsZero() {
				kl.times[rec.ID] = heldAt{at, rec.Offset}
			}
		}
	}
	for _, id := range ids {
		if h, ok := kl.times[id]; ok {
			note(id, h.at)
		}
	}
	return nil
}

// holds is ties.held for file's logs, which newest opened: whether one of
// them holds, as the current version of id, one written at `at` whose
// bytes are line's or larger. Only the logs' current versions are
// compared: a version a log holds besides is older, or of the same time
// and smaller bytes (records.Versions' order, which the index keeps), so
// smaller than its current one, and line either wins over it or is
// refused by the current one.
func (k *knownVersions) holds(file, id string, at time.Time, line []byte) bool {
	versions := newVersionReader()
	for _, kl := range k.open[file] {
		offset, ok := kl.offsetOf(id)
		if !ok {
			continue
		}
		f, err := kl.file()
		if err != nil {
			continue
		}
		if holds(f, offset, nil, versions, id, at, line) {
			return true
		}
	}
	return false
}

// sameParties is ties.parties for file's logs, which newest opened.
func (k *knownVersions) sameParties(file, id string, line []byte) bool {
	versions := newVersionReader()
	for _, kl := range k.open[file] {
		offset, ok := kl.offsetOf(id)
		f, err := kl.file()
		if !ok || err != nil {
			continue
		}
		held, err := lineAt(f, offset, nil)
		if gotID, _, ok := versions.of(held); err == nil && ok && gotID == id && !records.SameParties(file, held, line) {
			return false
		}
	}
	return true
}

// offsetOf is where the log's current version of id starts, as newest
// read it: through the index, or the log's one read.
func (kl *knownLog) offsetOf(id string) (int64, bool) {
	if kl.ix != nil {
		offset, _, ok, err := kl.ix.Lookup(id)
		return offset, ok && err == nil
	}
	h, ok := kl.times[id]
	return h.offset, ok
}

// timeAt is the version time of the line at offset in the log.
func (kl *knownLog) timeAt(offset int64) (time.Time, error) {
	f, err := kl.file()
	if err != nil {
		return time.Time{}, err
	}
	line, err := lineAt(f, offset, nil)
	return records.VersionTime(line), err // the caller reads no time on an error
}

// file is the log, opened once a merge for the versions read of it.
func (kl *knownLog) file() (*os.File, error) {
	if kl.f == nil {
		f, err := regular.Open(kl.log.Path)
		if err != nil {
			return nil, err
		}
		kl.f = f
	}
	return kl.f, nil
}

// close releases every index opened.
func (k *knownVersions) close() {
	for _, logs := range k.open {
		for _, kl := range logs {
			if kl.ix != nil {
				kl.ix.Close()
			}
			if kl.f != nil {
				kl.f.Close()
			}
		}
	}
	k.open = map[string][]*knownLog{}
}

// removeOldVersionIndex removes the index of versions that sync kept in
// dir/index before it asked the logs' indexes (4,096 files, none read
// now).
func removeOldVersionIndex(dir string) {
	_ = os.RemoveAll(filepath.Join(dir, "index"))
}
