package jsonl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
)

// The append chain lets a reader prove that a log only grew, by
// git-queen's own appends, since it last looked, without reading what it
// read then: the proof an append costs O(appended bytes) instead of a
// checksum of the whole prefix.
//
// Every Append to a log with a CacheDir, under the log's lock, records the
// log's stat before its write and after it in a small file of that
// directory (AppendsPath), never beside the log, which may be in a
// worktree. When the stat before is the last
// one recorded, the chain grows; otherwise (the first append, or a write
// git-queen did not make) it starts again. A reader whose cache saw the
// file at a stat in the chain, and finds the file now at the chain's last
// stat, knows the bytes it cached are still the file's first bytes.
//
// What is trusted is the stat, as git trusts its index and as the quiet
// stat of FileStat: a write changes the size or the ctime, which nobody
// can set back. The chain only drops the 2 s wait for quietness, which
// guards against a write landing in the same timestamp tick as the stat
// remembered. Here every stat is taken by the writer itself, after its
// own write, under the lock; a foreign writer would have to rewrite the
// file in place, keeping its size, within that tick, and Linux (6.13 and
// later) gives a file whose stat was just read a fine-grained ctime at its
// next change. A missing, damaged or stale chain only costs the checksum.

// chainLength bounds the file. A reader whose stat is older than the
// last chainLength appends is proved by the chain's first state instead:
// every state of the file from that one to the last is one of git-queen's
// appends (the chain would have started again at any other write), so a
// stat of the same file taken between the two, by its size and times, is
// one of them.
const chainLength = 64

// AppendsPath is where the append chain of the log at logPath is kept in
// cacheDir.
func AppendsPath(cacheDir, logPath string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(logPath)))
	return filepath.Join(cacheDir, "appends-"+hex.EncodeToString(sum[:8])+".json")
}

type appendChain struct {
	// Start is the chain's first state, kept when the oldest of Stats are
	// dropped; absent from chains written before it was.
	Start *FileStat  `json:"start,omitempty"`
	Stats []FileStat `json:"stats"`
}

// readChain reads the chain in chainPath: empty when it is missing, or
// does not end in the checksum of what comes before it (a write in
// progress, a torn one, one of an older format).
func readChain(chainPath string) appendChain {
	var c appendChain
	data, err := os.ReadFile(chainPath)
	if err != nil {
		return appendChain{}
	}
	body, sum, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(bytes.TrimSpace(sum)) != fmt.Sprintf("%08x", crc32.ChecksumIEEE(body)) || json.Unmarshal(body, &c) != nil {
		return appendChain{}
	}
	return c
}

// recordAppend adds, to the chain in chainPath, an append that took its
// log from stat before to stat after. It runs under the log's lock; it is
// best effort.
func recordAppend(chainPath string, before, after os.FileInfo) {
	from, ok1 := statOf(before)
	to, ok2 := statOf(after)
	if !ok1 || !ok2 {
		return
	}
	c := readChain(chainPath)
	if n := len(c.Stats); n == 0 || c.Stats[n-1] != from {
		c.Stats, c.Start = []FileStat{from}, &from
	}
	if c.Start == nil {
		c.Start = &c.Stats[0] // a chain from before Start was kept: it starts here
	}
	c.Stats = append(c.Stats, to)
	if len(c.Stats) > chainLength {
		c.Stats = c.Stats[len(c.Stats)-chainLength:]
	}
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	data = fmt.Appendf(data, "\n%08x\n", crc32.ChecksumIEEE(data))
	err = overwrite(chainPath, data)
	if errors.Is(err, os.ErrNotExist) && os.MkdirAll(filepath.Dir(chainPath), 0o755) == nil {
		err = overwrite(chainPath, data)
	}
	if err != nil {
		_ = os.Remove(chainPath) // a chain half written is no proof; none costs a checksum
	}
}

// overwrite writes data over the file at path in place, then cuts what is
// left of its old content. Neither a rename over the file nor a truncation
// to zero, which make ext4 (auto_da_alloc) start writing the file back at
// once, costing an append milliseconds: what is written here is a hint
// that readers check, and lost on a crash it only costs them a checksum.
func overwrite(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// grewByAppends reports whether the log whose chain is in chainPath, now
// at stat now, only had git-queen's appends since it was at stat seen
// (nothing at all, when seen is now and the last append recorded it).
func grewByAppends(chainPath string, seen, now FileStat) bool {
	c := readChain(chainPath)
	n := len(c.Stats)
	if n == 0 || c.Stats[n-1] != now {
		return false
	}
	return slices.Contains(c.Stats, seen) || (c.Start != nil && between(*c.Start, seen, now))
}

// between reports whether seen is a stat of the file that was at first
// and is now at last, taken between the two: the same file, its size and
// its times no less than first's and no more than last's.
func between(first, seen, last FileStat) bool {
	return seen.Dev == first.Dev && seen.Ino == first.Ino && first.Dev == last.Dev && first.Ino == last.Ino &&
		first.Size <= seen.Size && seen.Size <= last.Size &&
		first.Mtime <= seen.Mtime && seen.Mtime <= last.Mtime &&
		first.Ctime <= seen.Ctime && seen.Ctime <= last.Ctime
}

// GrewByAppends reports whether the log at logPath, whose appends keep
// their chain in cacheDir, is now (its current stat) the file it was at
// seen plus git-queen's own appends: its first seen.Size bytes are the
// ones it held then. The pre-commit hook uses it to know a staged log
// starts with HEAD's blob without reading either.
func GrewByAppends(cacheDir, logPath string, seen FileStat, now os.FileInfo) bool {
	st, ok := statOf(now)
	return ok && grewByAppends(AppendsPath(cacheDir, logPath), seen, st)
}

// StatOf is the stat of info that the append chain and the caches compare,
// false on a platform without file identities.
func StatOf(info os.FileInfo) (FileStat, bool) { return statOf(info) }
