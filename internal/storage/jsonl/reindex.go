package jsonl

import (
	"bytes"
	"errors"
	"os"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// A log's index is rebuilt, or brought up to date, outside an append
// when a reader finds it stale (another program wrote the log): by
// Tx.Reindex under the lock, by Log.ReindexIfFree if the lock is free at
// once, and, for a file written once and renamed into place, by
// Log.IndexWrittenOnce without it.

// Reindex rebuilds the index of the log l from its bytes, under the
// lock, unless its index matches it: for a reader about to rely on the
// index of a log another program wrote to, as l's next append would. It
// is best effort, like the index an append keeps.
func (tx *Tx) Reindex(l *Log) {
	if !tx.done {
		l.reindex(true)
	}
}

// IndexWrittenOnce gives the file l names, which is written once and
// renamed into place, never appended to (the reservations a fetch
// brought), the index a writer keeps, unless one matches it: then what
// it holds is vouched for, and a union over it can be cached. It takes
// no lock, as nobody writes the file under one: the index is replaced by
// a rename, and one built while the file changed does not match it. It
// is best effort.
func (l *Log) IndexWrittenOnce() { l.reindex(false) }

// ReindexIfFree rebuilds the log's index, unless it matches the log, for
// a reader that found it stale (another program wrote the log): under
// the log's lock, taken only if no process holds it now (a reader never
// waits for a writer; a busy lock leaves the rebuild to a later read or
// the next append), and only when the cache directory takes a new file
// (a rebuild that could not be saved would cost every read the whole
// log). It never rebuilds without the lock: a writer could append onto
// the older index meanwhile. It reports whether it held the lock.
func (l *Log) ReindexIfFree() bool {
	if l.Lock == nil || l.CacheDir == "" {
		return false
	}
	ran, err := l.Lock.TryDo(func(tx *Tx) error {
		if writable(l.CacheDir) {
			tx.Reindex(l)
		}
		return nil
	})
	return ran && err == nil
}

// writable reports whether dir exists or can be made, and takes a new
// file.
func writable(dir string) bool {
	if os.MkdirAll(dir, 0o755) != nil {
		return false
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return false
	}
	f.Close()
	return os.Remove(f.Name()) == nil
}

// reindex rebuilds the index of the log from its bytes unless its index
// matches it. Under the lock (locked), an index that covers a prefix of
// the log (another program appended) is brought up to date instead, at
// the cost of the prefix's checksum and the lines after it; without the
// lock, only a new index replaces it (a rename).
func (l *Log) reindex(locked bool) {
	if l.CacheDir == "" {
		return
	}
	f, err := regular.Open(l.Path)
	if err != nil {
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return
	}
	if ix, ok := OpenIndex(l.CacheDir, l.Path, info); ok {
		ix.Close()
		return
	}
	st, ok := statOf(info)
	switch {
	case !ok:
	case locked:
		l.refreshIndex(f, st, 0)
	default:
		l.rebuildIndex(f, st, 0)
	}
}

// catchUp brings the log's index, which covers a prefix of the log,
// up to the log at stat to, as an append would: it checks the prefix's
// checksum, and adds the entries of the lines after it. It reports false
// when the index covers no prefix of the log (the log was rewritten, or
// is missing): then the index must be rebuilt. It must run under the
// log's lock, as it writes the index in place.
func (l *Log) catchUp(f *os.File, to FileStat) bool {
	ix, ok := readIndex(IndexPath(l.CacheDir, l.Path))
	if !ok {
		return false
	}
	defer ix.Close()
	from := ix.state.Size
	if from <= 0 || from >= to.Size {
		return false
	}
	data, release, err := mapfile.Map(f, to.Size, false)
	if err != nil {
		return false
	}
	defer release()
	var pending []indexEntry
	var state logState
	err = whileMapped(f.Name(), func() error {
		added := data[from:]
		// A line after the prefix that starts with a BOM is no record:
		// read as a log's first line, it would be one.
		if data[from-1] != '\n' || bytes.HasPrefix(added, []byte("\xef\xbb\xbf")) || crc32c.Checksum(data[:from]) != ix.state.CRC {
			return errNotAPrefix
		}
		var whole bool
		if pending, whole = l.indexEntries(added); !whole {
			return errNotAPrefix
		}
		for i := range pending {
			pending[i].offset += from
		}
		state = logState{Stat: to, Size: to.Size, Lines: ix.state.Lines + int64(bytes.Count(added, []byte{'\n'})),
			CRC: crc32c.Update(ix.state.CRC, added)}
		return nil
	})
	if err != nil {
		return false
	}
	l.addRecord(f, ix, false, state, pending)
	return true
}

var errNotAPrefix = errors.New("the index covers no prefix of the log")
