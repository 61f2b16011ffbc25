package ledgersync

import (
	"cmp"
	"errors"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
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
// its next append would; one that still has none is read.
type knownVersions struct {
	tx *jsonl.Tx
	s  *store.Store
	// open are the indexes of each log file's four logs, opened on the
	// first question about it, before the merge appends to any of them.
	open map[string][]*knownLog
}

// knownLog is one log that knownVersions asks: through its index, or
// (with no index to be had) by reading it.
type knownLog struct {
	log *jsonl.Log
	f   *os.File
	ix  *jsonl.Index
}

func newKnownVersions(tx *jsonl.Tx, s *store.Store) *knownVersions {
	return &knownVersions{tx: tx, s: s, open: map[string][]*knownLog{}}
}

// logsOf are the logs that hold versions of file's records: this clone's,
// the received one, and their archives.
func (k *knownVersions) logsOf(file string) []*jsonl.Log {
	own, received := k.s.Log(file), k.s.ReceivedLog(file)
	return []*jsonl.Log{own, received, archiveOf(own), archiveOf(received)}
}

// archiveOf is the log that archive moves l's old records to.
func archiveOf(l *jsonl.Log) *jsonl.Log {
	a := *l
	a.Path = jsonl.ArchivePath(l.Path)
	return &a
}

// newest returns, for each of ids that a log of file holds with a version
// time, the newest such time.
func (k *knownVersions) newest(file string, ids []string) (map[string]time.Time, error) {
	logs, err := k.logs(file)
	if err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for _, kl := range logs {
		if err := kl.newest(k.tx, ids, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// logs opens file's logs and their indexes, once.
func (k *knownVersions) logs(file string) ([]*knownLog, error) {
	if logs, ok := k.open[file]; ok {
		return logs, nil
	}
	var logs []*knownLog
	for _, l := range k.logsOf(file) {
		f, err := os.Open(l.Path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			k.closeAll(logs)
			return nil, err
		}
		kl := &knownLog{log: l, f: f}
		kl.openIndex(k.tx)
		logs = append(logs, kl)
	}
	k.open[file] = logs
	return logs, nil
}

// openIndex opens the log's index, rebuilt first when it does not cover
// the log (none is left when that fails).
func (kl *knownLog) openIndex(tx *jsonl.Tx) {
	info, err := kl.f.Stat()
	if err != nil {
		return
	}
	ix, ok := jsonl.OpenIndex(kl.log.CacheDir, kl.log.Path, info)
	if !ok {
		tx.Reindex(kl.log)
		ix, ok = jsonl.OpenIndex(kl.log.CacheDir, kl.log.Path, info)
	}
	if ok {
		kl.ix = ix
	}
}

// noTime is the version time an index keeps for a record without one.
const noTime = math.MinInt64

// newest notes in out the newest version time the log holds of each of
// ids, where it is newer than out's.
func (kl *knownLog) newest(tx *jsonl.Tx, ids []string, out map[string]time.Time) error {
	for kl.ix != nil {
		found, err := kl.lookup(ids)
		if err == nil {
			for id, at := range found {
				if had, ok := out[id]; !ok || at.After(had) {
					out[id] = at
				}
			}
			return nil
		}
		if !errors.Is(err, jsonl.ErrDamagedIndex) {
			return err
		}
		// The lookup removed the damaged index: rebuild it, once.
		kl.ix.Close()
		kl.ix = nil
		if info, err := kl.f.Stat(); err == nil {
			tx.Reindex(kl.log)
			if ix, ok := jsonl.OpenIndex(kl.log.CacheDir, kl.log.Path, info); ok {
				kl.ix = ix
			}
		}
	}
	return kl.scan(ids, out)
}

// lookup asks the index for each id.
func (kl *knownLog) lookup(ids []string) (map[string]time.Time, error) {
	found := map[string]time.Time{}
	for _, id := range ids {
		_, nanos, ok, err := kl.ix.Lookup(id)
		if err != nil {
			return nil, err
		}
		if ok && nanos != noTime {
			found[id] = time.Unix(0, nanos).UTC()
		}
	}
	return found, nil
}

// scan reads the log for ids' current versions, for a log without an
// index (its cache directory cannot be written).
func (kl *knownLog) scan(ids []string, out map[string]time.Time) error {
	wanted := make(map[string]bool, len(ids))
	for _, id := range ids {
		wanted[id] = true
	}
	q := jsonl.Query{Key: kl.log.Key, Versions: kl.log.Versions, Fields: []string{cmp.Or(kl.log.Key, jsonline.DefaultKey)}}
	q.Static = func(f [][]byte) bool { s, ok := jsonline.String(f[0]); return ok && wanted[s] }
	entries, _, err := jsonl.SelectFile(kl.log.Path, q)
	if err != nil {
		return err
	}
	for _, e := range entries {
		at := records.VersionTime(e.Raw)
		if had, ok := out[e.ID]; !at.IsZero() && (!ok || at.After(had)) {
			out[e.ID] = at
		}
	}
	return nil
}

// close releases every index and file opened.
func (k *knownVersions) close() {
	for _, logs := range k.open {
		k.closeAll(logs)
	}
	k.open = map[string][]*knownLog{}
}

func (k *knownVersions) closeAll(logs []*knownLog) {
	for _, kl := range logs {
		if kl.ix != nil {
			kl.ix.Close()
		}
		kl.f.Close()
	}
}

// removeOldVersionIndex removes the index of versions that sync kept in
// dir/index before it asked the logs' indexes (4,096 files, none read
// now).
func removeOldVersionIndex(dir string) {
	_ = os.RemoveAll(filepath.Join(dir, "index"))
}
