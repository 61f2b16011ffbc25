package app

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/domain/work"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// The memo of a beads tracker: what ready derived from .beads/issues.jsonl
// (its open work and problems), kept in queen-cache/ while the file does
// not change, so that a ready on an unchanged 10,000-issue tracker reads a
// few hundred kilobytes instead of parsing megabytes. The file's stat
// (device, inode, size, mtime, ctime: what git's index trusts) decides;
// a file changed in the last two seconds is not memoized, so a write in
// the same timestamp tick cannot hide behind it. A memo that does not read
// back whole is ignored and rewritten.

// memoHeader says which file, in which state, a memo describes.
type memoHeader struct {
	Path string          `json:"path"`
	Stat *jsonl.FileStat `json:"stat"`
}

// memoPath is where the memo of the tracker at path lives.
func memoPath(s *store.Store, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(s.WS.CacheDir(), "ready-"+hex.EncodeToString(sum[:8])+".memo")
}

// addBeads adds the open work of the tracker at path (named rel) to pool,
// from its memo when it is current, else from the file (then memoized).
// The pool keeps slices of what it read until release.
func (e *Env) addBeads(s *store.Store, pool *work.Pool, path, rel string) (release func(), err error) {
	memo := ""
	if s.WS.Repo != nil { // a memo goes to git's directory, never beside a plain store's files
		memo = memoPath(s, path)
	}
	if info, err := os.Stat(path); err == nil && memo != "" {
		if data, err := os.ReadFile(memo); err == nil {
			if body, ok := memoBody(data, path, info); ok {
				var p work.Pool
				if p.AddMemo(body) == nil {
					pool.Add(&p)
					return func() {}, nil
				}
			}
		}
	}
	data, info, unmap, err := mapfile.OpenInfo(path, true)
	if err != nil {
		return nil, err
	}
	if unmap == nil {
		unmap = func() {}
	}
	var p work.Pool
	p.AddBeads(rel, data)
	pool.Add(&p)
	if info != nil && memo != "" {
		if stat := jsonl.QuietStat(info, e.Now()); stat != nil {
			writeMemo(memo, memoHeader{Path: path, Stat: stat}, p.Memo())
		}
	}
	return unmap, nil
}

// memoBody is the pool part of a memo, when its header names path as info
// describes it.
func memoBody(data []byte, path string, info os.FileInfo) ([]byte, bool) {
	n, k := binary.Uvarint(data)
	if k <= 0 || n > uint64(len(data)-k) {
		return nil, false
	}
	var h memoHeader
	if json.Unmarshal(data[k:k+int(n)], &h) != nil || h.Path != path || !jsonl.Unchanged(h.Stat, info) {
		return nil, false
	}
	return data[k+int(n):], true
}

// writeMemo writes a memo whole or not at all (a temporary file renamed
// over it); a memo that cannot be written is simply not there next time.
func writeMemo(path string, h memoHeader, body []byte) {
	head, err := json.Marshal(h)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return
	}
	data := binary.AppendUvarint(nil, uint64(len(head)))
	data = append(append(data, head...), body...)
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(0o644) // as the other caches: readable by whoever reads the repository
	}
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}
