package gitrepo

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/git-queen/git-queen/internal/mapfile"
)

// Content reads what the pre-commit hook checks: the staged and committed
// bytes of changed paths, without a git process. A staged file whose
// worktree copy still matches the index's stat data is read from the
// worktree, mapped (git itself trusts that stat, and a 500 MB log staged
// as a loose object would otherwise be inflated whole); other blobs come
// from the object store, and only what neither can read from git.
type Content struct {
	repo    *Repo
	objects *Objects
	git     *Blobs // started on first need
}

// OpenContent starts a reader; Close releases it.
func (r *Repo) OpenContent() *Content {
	return &Content{repo: r, objects: OpenObjects(r.CommonDir)}
}

// Close releases the mapped packs and the git process, if one was needed.
func (c *Content) Close() {
	c.objects.Close()
	if c.git != nil {
		c.git.Close()
	}
}

// Staged returns the bytes the commit will hold at ch.Path. The bytes may
// be a mapping of the worktree file, valid until release.
func (c *Content) Staged(ch Change) (data []byte, release func(), err error) {
	if ch.stat != nil && c.repo.TopLevel != "" && ch.stat.matches(filepath.Join(c.repo.TopLevel, filepath.FromSlash(ch.Path))) {
		data, release, err := mapfile.Open(filepath.Join(c.repo.TopLevel, filepath.FromSlash(ch.Path)), false)
		if err == nil && len(data) == int(ch.stat.size) {
			return data, release, nil
		}
		if err == nil {
			release() // changed since the stat: read the blob
		}
	}
	data, ok, err := c.blob(ch.Staged, ":"+ch.Path)
	if err == nil && !ok {
		err = fmt.Errorf("%s is not in the index", ch.Path)
	}
	return data, func() {}, err
}

// Head returns the bytes HEAD holds at ch.Path; ok is false when it has
// none (a new path, or no commit yet).
func (c *Content) Head(ch Change) (data []byte, ok bool, err error) {
	return c.blob(ch.Head, "HEAD:"+ch.Path)
}

// Read returns the bytes of the blob a name such as ":path" or
// "HEAD:path" gives, through git: for paths that are not changes (an
// archive log staged beside its log).
func (c *Content) Read(name string) ([]byte, bool, error) { return c.blob("", name) }

// blob reads the blob id (hex) in process, else asks git for name.
func (c *Content) blob(id, name string) ([]byte, bool, error) {
	if oid, err := hex.DecodeString(id); err == nil && len(oid) == oidLen {
		if kind, data, err := c.objects.Read(oid); err == nil && kind == "blob" {
			return data, true, nil
		}
	}
	if c.git == nil {
		b, err := c.repo.OpenBlobs()
		if err != nil {
			return nil, false, err
		}
		c.git = b
	}
	return c.git.Read(name)
}

// matches reports whether the file at path is the one git hashed into the
// index: the same size, modification time and inode, a regular file, and
// not changed in the same instant the index was written (git's racy
// rule: such a file is read from the blob instead).
func (s *indexStat) matches(path string) bool {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || uint32(info.Size()) != s.size {
		return false
	}
	mtime := info.ModTime()
	if uint32(mtime.Unix()) != s.mtimeSec || uint32(mtime.Nanosecond()) != s.mtimeNsec || mtime.UnixNano() >= s.indexMtime {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && uint32(st.Ino) == s.ino
}
