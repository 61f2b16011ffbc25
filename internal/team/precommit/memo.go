package precommit

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// The blob memo remembers, per blob id, what the hook proved of a staged
// file, so that the next commit pays for what changed rather than for the
// history before it:
//
//   - its size and CRC-32C, facts of the content alone: when that blob is
//     HEAD's and the staged log starts with the same bytes, the commit
//     only appended, and the committed blob is never read (it would be
//     inflated whole from a pack);
//   - that it validated clean as a format, true of this git-queen binary:
//     a blob staged again (an amended commit, a commit retried after a
//     refusal of something else) is not validated again.
//
// A blob id names its content, so an entry can only go stale through the
// binary's rules, which is why "clean" is tied to the binary's identity.
// A missing or unreadable entry costs the work it would have saved; a
// damaged one is not believed (it does not decode).

// blobMemo is one entry.
type blobMemo struct {
	Size int64 `json:"size"`
	// Sum is two independent checksums of the content (CRC-32C and the
	// IEEE CRC-32, both computed by the CPU's own instructions): 64 bits,
	// so that an edit of a committed line passes for the same bytes with
	// odds of one in 2^64, at memory speed.
	Sum [2]uint32 `json:"crc32c_ieee"`
	// Clean is the format the blob validated clean as, by Binary.
	Clean  string `json:"clean,omitempty"`
	Binary string `json:"binary,omitempty"`
}

// memoDir is where entries are kept: one small file per blob id.
func memoDir(commonDir string) string { return filepath.Join(commonDir, "queen-cache", "blobs") }

// maxMemoEntries bounds the directory; past it the oldest half goes.
const maxMemoEntries = 1024

func readMemo(dir, id string) (blobMemo, bool) {
	var m blobMemo
	if id == "" {
		return m, false
	}
	data, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil || json.Unmarshal(data, &m) != nil || m.Size < 0 {
		return blobMemo{}, false
	}
	return m, true
}

// writeMemo records an entry, best effort.
func writeMemo(dir, id string, m blobMemo) {
	if data, err := json.Marshal(m); err == nil && id != "" && writeRenamed(dir, id+".json", data) {
		pruneMemo(dir)
	}
}

// writeRenamed writes data to dir/name through a rename, so that hooks
// running at once in several worktrees never read half of it, and says
// whether it did.
func writeRenamed(dir, name string, data []byte) bool {
	return os.MkdirAll(dir, 0o755) == nil && jsonl.WriteCacheFile(filepath.Join(dir, name), data) == nil
}

// pruneMemo removes the older half of the entries once there are too many.
func pruneMemo(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= maxMemoEntries {
		return
	}
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = filepath.Join(dir, e.Name())
	}
	keepNewest(paths, len(paths)-len(paths)/2)
}

// keepNewest removes all but the keep most recently modified of paths.
func keepNewest(paths []string, keep int) {
	type aged struct {
		path string
		mod  int64
	}
	var all []aged
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil {
			all = append(all, aged{p, info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.mod, b.mod) })
	for _, a := range all[:max(0, len(all)-keep)] {
		os.Remove(a.path)
	}
}

// binaryIdentity names the running binary by its file's size and
// modification time: a rebuilt git-queen (new rules) trusts no clean
// entry an older one wrote. "" when it cannot tell, and then nothing is
// trusted as clean.
var binaryIdentity = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	info, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d-%d", info.Size(), info.ModTime().UnixNano())
})

// extended is the checksums of data, which starts with the blob m
// describes (provesPrefix said so): continued over the bytes after it
// rather than computed again over all of them.
func (m blobMemo) extended(data []byte) [2]uint32 {
	rest := data[m.Size:]
	return [2]uint32{crc32c.Update(m.Sum[0], rest), crc32.Update(m.Sum[1], crc32.IEEETable, rest)}
}

// grewFrom reports whether staged, the bytes of the worktree file at path
// whose stat is now, is the blob m describes followed by lines git-queen
// appended: the file's index in cacheDir, kept by git-queen's appends
// (an export), matches the file and vouches that its first m.Size bytes
// have the blob's CRC-32C.
func (m blobMemo) grewFrom(staged []byte, cacheDir, path string, now os.FileInfo) bool {
	return now != nil && now.Size() == int64(len(staged)) && m.endsLine(staged) && m.indexProves(cacheDir, path, now)
}

// indexProves reports whether the index of the file at path, in
// cacheDir, matches the file at stat now and vouches that it starts with
// the blob m describes.
func (m blobMemo) indexProves(cacheDir, path string, now os.FileInfo) bool {
	ix, ok := jsonl.OpenIndex(cacheDir, path, now)
	if !ok {
		return false
	}
	defer ix.Close()
	return m.Size > 0 && ix.Proves(m.Size, m.Sum[0])
}

// provesPrefix reports whether staged begins with the blob m describes,
// ending at a line end: then the staged log only appended to it. forget
// drops the pages read (see windowedChecksums).
func (m blobMemo) provesPrefix(staged []byte, forget func([]byte)) bool {
	return m.endsLine(staged) && windowedChecksums(staged[:m.Size], forget) == m.Sum
}

// endsLine reports whether staged is long enough to start with the blob m
// describes and has a line end where it would end.
func (m blobMemo) endsLine(staged []byte) bool {
	return m.Size > 0 && int64(len(staged)) >= m.Size && staged[m.Size-1] == '\n'
}

// Digests (schema.Digest) are kept beside the entries, for the clean
// blobs of formats that validate incrementally: with HEAD's, a commit
// that appends to a committed log validates only the appended lines. They
// hold about 40 bytes a line, so a path keeps two (HEAD's blob's, and the
// one staged last, which the next commit makes HEAD's), and the directory
// the newest few.
const maxDigests = 8

func digestPath(dir, id string) string { return filepath.Join(dir, id+".digest") }

func readDigest(dir, id string) (*schema.Digest, bool) {
	if id == "" {
		return nil, false
	}
	data, err := os.ReadFile(digestPath(dir, id))
	var d schema.Digest
	if err != nil || d.UnmarshalBinary(data) != nil {
		return nil, false
	}
	return &d, true
}

// writeDigest records d for blob id, staged at path over HEAD's blob
// head, through a rename, best effort; it removes the path's other
// digests (a digests-PATHSUM file names them), and the oldest beyond
// maxDigests.
func writeDigest(dir, path, head, id string, d *schema.Digest) {
	data, err := d.MarshalBinary()
	if err != nil || id == "" || !writeRenamed(dir, id+".digest", data) {
		return
	}
	owners := filepath.Join(dir, "digests-"+fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(path))))
	if data, err := os.ReadFile(owners); err == nil {
		for _, other := range strings.Fields(string(data)) {
			if other != id && other != head {
				os.Remove(digestPath(dir, other))
			}
		}
	}
	_ = os.WriteFile(owners, []byte(head+" "+id+"\n"), 0o644)
	// Listed, not globbed: the repository's path may hold glob characters.
	entries, _ := os.ReadDir(dir)
	var old []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".digest") {
			old = append(old, filepath.Join(dir, e.Name()))
		}
	}
	if len(old) > maxDigests {
		keepNewest(old, maxDigests)
	}
}
