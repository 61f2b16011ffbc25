package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/jsonl"
)

// Sources are the copies of one log a read takes the union of: this
// worktree's (first), every other worktree's, and the committed one when it
// holds something the working copy does not.
type Sources struct {
	Paths []string
	// Blob is the id of the log committed at HEAD, or "" when there is none
	// or it is a prefix of this worktree's copy (the log only grew since it
	// was committed, the usual case), so it adds nothing.
	Blob       string
	blobSource string
	blobData   []byte // loaded when the header had to be computed
}

// Count is how many sources a read unions.
func (src *Sources) Count() int {
	n := len(src.Paths)
	if src.Blob != "" {
		n++
	}
	return n
}

// Sources finds the copies of the log name.
func (s *Store) Sources(name string) (*Sources, error) {
	src := &Sources{Paths: s.logPaths(name)}
	repo := s.WS.Repo
	if repo == nil || repo.TopLevel == "" {
		return src, nil
	}
	rel, err := filepath.Rel(repo.TopLevel, filepath.Join(s.WS.BeadsDir, name))
	if err != nil || strings.HasPrefix(rel, "..") {
		return src, nil // the store is not part of this worktree
	}
	rel = filepath.ToSlash(rel)
	blob, ok := s.committedBlob(rel)
	if !ok {
		return src, nil // no commit yet, or the log was never committed
	}
	hdrPath := filepath.Join(s.cacheDir(), blob+".hdr")
	hdr, ok := readBlobHeader(hdrPath)
	if ok {
		touch(hdrPath)
	} else {
		content, err := gitrepo.Git(repo.TopLevel, "cat-file", "blob", blob)
		if err != nil {
			return nil, err
		}
		src.blobData = []byte(content)
		hdr = blobHeader{Size: len(src.blobData), CRC: jsonl.Checksum(src.blobData)}
		writeBlobHeader(hdrPath, hdr)
	}
	grown, stat := jsonl.HasPrefix(src.Paths[0], int64(hdr.Size), hdr.CRC, hdr.File)
	if !grown {
		src.Blob, src.blobSource = blob, "HEAD:"+rel
	} else if stat != hdr.File {
		hdr.File = stat
		writeBlobHeader(hdrPath, hdr)
	}
	return src, nil
}

// committedBlob returns the id of the blob HEAD holds at rel. A commit's
// tree never changes, so the answer is cached per commit, and HEAD is read
// from the ref files: most reads start no git process at all.
func (s *Store) committedBlob(rel string) (string, bool) {
	repo := s.WS.Repo
	commit, known := repo.HeadCommit()
	if !known {
		out, err := gitrepo.Git(repo.TopLevel, "rev-parse", "--verify", "-q", "HEAD:"+rel)
		return strings.TrimSpace(out), err == nil
	}
	memo := filepath.Join(s.cacheDir(), commit+".tree")
	if data, err := os.ReadFile(memo); err == nil {
		for line := range strings.Lines(string(data)) {
			if path, blob, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t"); ok && path == rel && strings.HasSuffix(line, "\n") {
				return blob, blob != "-"
			}
		}
	}
	out, err := gitrepo.Git(repo.TopLevel, "rev-parse", "--verify", "-q", commit+":"+rel)
	blob := strings.TrimSpace(out)
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 1 && blob == "":
		blob = "-" // not in this commit: remember that too
	default:
		return "", false
	}
	appendMemo(memo, rel+"\t"+blob+"\n")
	return blob, blob != "-"
}

// appendMemo adds one line to a per-commit memo (best effort; one write
// with O_APPEND, so concurrent writers cannot split a line).
func appendMemo(path, line string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line)
	_ = f.Close()
}

// selectBlob selects from the committed log. Blobs never change and named
// queries are monotone in time, so a named query's selection of a blob is
// cached and filtered again on later reads: a large committed log is
// decompressed once.
func (s *Store) selectBlob(src *Sources, q Query) ([]jsonl.Entry, error) {
	cache := ""
	if q.Name != "" {
		cache = filepath.Join(s.cacheDir(), queryHash(src.Blob, q.Name)+".jsonl")
		if data, err := os.ReadFile(cache); err == nil {
			touch(cache)
			entries, _ := jsonl.Select(data, src.blobSource, q.Query)
			return entries, nil
		}
	}
	data := src.blobData
	if data == nil {
		content, err := gitrepo.Git(s.WS.Repo.TopLevel, "cat-file", "blob", src.Blob)
		if err != nil {
			return nil, err
		}
		data = []byte(content)
	}
	entries, _ := jsonl.Select(data, src.blobSource, q.Query)
	if cache != "" {
		var buf bytes.Buffer
		for _, e := range entries {
			buf.Write(e.Raw)
			buf.WriteByte('\n')
		}
		writeCache(cache, buf.Bytes())
	}
	return entries, nil
}

// cacheDir holds the selection caches, in git's common directory (shared
// by every worktree, never committed), or in the store directory when
// there is no repository.
func (s *Store) cacheDir() string {
	if s.WS.Repo != nil {
		return filepath.Join(s.WS.Repo.CommonDir, "queen-cache")
	}
	return filepath.Join(s.WS.BeadsDir, ".queen-cache")
}

// cachePath is where q's selection of the log at path is cached, or "" for
// a query without a name.
func (s *Store) cachePath(path string, q Query) string {
	if q.Name == "" {
		return ""
	}
	return filepath.Join(s.cacheDir(), queryHash(realPath(path), q.Name)+".idx")
}

func queryHash(source, query string) string {
	sum := sha256.Sum256([]byte(source + "\x00" + query))
	return hex.EncodeToString(sum[:8])
}

// blobHeader describes a committed blob: enough to tell whether a working
// copy begins with it.
type blobHeader struct {
	Size int    `json:"size"`
	CRC  uint32 `json:"crc32c"`
	// File is the stat of a working copy found to begin with the blob, so
	// that the next read, while it is unchanged, need not checksum it.
	File *jsonl.FileStat `json:"file,omitempty"`
}

// touch marks a cache file used, so pruning keeps it.
func touch(path string) {
	now := time.Now()
	_ = os.Chtimes(path, now, now)
}

func readBlobHeader(path string) (blobHeader, bool) {
	var hdr blobHeader
	f, err := os.Open(path)
	if err != nil {
		return hdr, false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 256).ReadSlice('\n')
	return hdr, err == nil && json.Unmarshal(line, &hdr) == nil
}

func writeBlobHeader(path string, hdr blobHeader) {
	b, _ := json.Marshal(hdr)
	writeCache(path, append(b, '\n'))
}

// cacheMaxAge is how long a blob's cache files live unused. A blob is
// committed once and read until the log changes again; each commit that
// touches a log leaves one behind.
const cacheMaxAge = 7 * 24 * time.Hour

// writeCache writes a cache file (best effort: a cache that cannot be
// written only makes the next read slower) and removes blob caches nobody
// has used for a week.
func writeCache(path string, data []byte) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	_ = jsonl.WriteCacheFile(path, data)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && !e.IsDir() && time.Since(info.ModTime()) > cacheMaxAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
