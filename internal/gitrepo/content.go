package gitrepo

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// Content reads what the pre-commit hook checks: the staged and committed
// bytes of changed paths, without a git process. A staged file whose
// worktree copy still matches the index's stat data, and that git does
// not convert (a filter, line ends), is read from the worktree, mapped
// (git itself trusts that stat, and a 500 MB log staged
// as a loose object would otherwise be inflated whole); other blobs come
// from the object store, and only what neither can read from git.
type Content struct {
	repo    *Repo
	objects *Objects
	git     *Blobs // started on first need
	// mapped are the worktree files mapped and not yet released: the only
	// bytes Forget may drop.
	mapped [][]byte
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

// StagedFile is Staged, and the worktree file's stat when the bytes are
// its mapping and the index's stat vouches for them (the file holds the
// staged blob, as git itself assumes), else nil: what lets the
// hook remember which file held a blob, and prove by the file's append
// chain that it only grew since. seen, when not nil, is written every
// byte of the worktree file, in order, when they are all read to check
// them against the blob id (a caller that reads them all anyway then
// need not read them again), and is Reset when they prove not to be the
// blob's; it hears nothing otherwise.
func (c *Content) StagedFile(ch Change, seen Sink) (data []byte, release func(), file os.FileInfo, err error) {
	if data, release, info, ok := c.fromWorktree(ch, seen); ok {
		return data, release, info, nil
	}
	data, ok, err := c.blob(ch.Staged, ":"+ch.Path)
	if err == nil && !ok {
		err = fmt.Errorf("%s is not in the index", ch.Path)
	}
	return data, func() {}, nil, err
}

// fromWorktree maps the worktree file when it holds the staged blob's
// bytes: when its stat is the index's (git's own trust), or, for an entry
// git could not trust by stat (written in the same second as the index,
// which is how an agent's append-add-commit usually goes), when its bytes
// hash to the staged blob id. SHA-1 runs at about 1.9 GB/s on the
// benchmark machine, where inflating a loose object runs at a tenth of
// that.
func (c *Content) fromWorktree(ch Change, seen Sink) ([]byte, func(), os.FileInfo, bool) {
	if ch.stat == nil || c.repo.TopLevel == "" || ch.Staged == "" {
		return nil, nil, nil, false
	}
	path := filepath.Join(c.repo.TopLevel, filepath.FromSlash(ch.Path))
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return nil, nil, nil, false
	}
	trusted := ch.stat.matches(info) && c.holdsUnconverted(ch, info.Size())
	data, mappedInfo, unmap, err := mapfile.OpenInfo(path, false)
	if err != nil {
		return nil, nil, nil, false
	}
	release := unmap
	if mappedInfo != nil {
		c.mapped = append(c.mapped, data)
		release = func() {
			c.mapped = slices.DeleteFunc(c.mapped, func(m []byte) bool { return within(m, data) })
			unmap()
		}
	}
	if trusted && len(data) == int(info.Size()) {
		return data, release, info, true
	}
	if c.hashBlob(data, seen) == ch.Staged {
		// Verified bytes, but the stat was taken before them: not one to
		// remember as the stat at which the file held this blob.
		return data, release, nil, true
	}
	if seen != nil {
		seen.Reset()
	}
	release()
	return nil, nil, nil, false
}

// holdsUnconverted says whether git stored the worktree file of ch,
// whose stat matches the index's and which is size bytes long, as the
// bytes it holds: a file git converts on its way in (a filter, line ends)
// may hold other bytes than the blob its stat was recorded for. Line
// ends only ever shrink on the way in (CRLF to LF), so a blob as long as
// the file holds its bytes; the blob's size is read from its header.
//
// The attributes are those of now, and the blob was made at the add: so
// only when no attribute file changed since (see attributesSettled) do
// they say how it was made.
func (c *Content) holdsUnconverted(ch Change, size int64) bool {
	if !c.repo.attributesSettled(ch.Path, ch.stat.changedAt()) {
		return false
	}
	switch c.repo.conversionOf(ch.Path) {
	case convertsNothing:
		return true
	case convertsLineEnds:
		oid, err := hex.DecodeString(ch.Staged)
		if err != nil || len(oid) != oidLen {
			return false
		}
		blobSize, err := c.objects.Size(oid)
		return err == nil && blobSize == size
	}
	return false
}

// Sink hears bytes StagedFile reads anyway (see there).
type Sink interface {
	io.Writer
	Reset()
}

// hashWindow is how much of a worktree file is hashed between drops of
// its pages (each drop costs a pass over the page tables).
const hashWindow = 64 << 20

// Head returns the bytes HEAD holds at ch.Path; ok is false when it has
// none (a new path, or no commit yet).
func (c *Content) Head(ch Change) (data []byte, ok bool, err error) {
	return c.blob(ch.Head, "HEAD:"+ch.Path)
}

// Read returns the bytes of the blob a name such as ":path" or
// "HEAD:path" gives, through git: for paths that are not changes (an
// archive log staged beside its log).
func (c *Content) Read(name string) ([]byte, bool, error) { return c.blob("", name) }

// blob reads the blob id (hex) in process, else asks git for name. A
// damaged object is an error: git, asked for it, would not say so (its
// `cat-file --batch` announces the size the header claims, sends the few
// bytes that inflate, and waits for the next name).
func (c *Content) blob(id, name string) ([]byte, bool, error) {
	if oid, err := hex.DecodeString(id); err == nil && len(oid) == oidLen {
		kind, data, err := c.objects.Read(oid)
		if err == nil && kind == "blob" {
			return data, true, nil
		}
		if err != nil && !IsNotInProcess(err) {
			return nil, false, err
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

// changedAt is the status change time git recorded for the entry (zero
// when it recorded none), at the precision it recorded.
func (s *indexStat) changedAt() time.Time {
	if s.ctimeSec == 0 {
		return time.Time{}
	}
	return time.Unix(int64(s.ctimeSec), int64(s.ctimeNsec))
}

// matches reports whether info describes the file git hashed into the
// index: the same size, modification time and inode, and not changed in
// the same instant the index was written (git's racy rule: such a file
// may have changed unseen). A git built without USE_NSEC (Debian's, for
// one) records whole seconds, and then seconds are compared.
func (s *indexStat) matches(info os.FileInfo) bool {
	if uint32(info.Size()) != s.size {
		return false
	}
	mtime := info.ModTime()
	if uint32(mtime.Unix()) != s.mtimeSec {
		return false
	}
	if s.mtimeNsec != 0 {
		if uint32(mtime.Nanosecond()) != s.mtimeNsec || mtime.UnixNano() >= s.indexMtime {
			return false
		}
	} else if mtime.Unix() >= s.indexMtime/1e9 {
		return false
	}
	ino, ok := inode(info)
	return ok && uint32(ino) == s.ino
}
