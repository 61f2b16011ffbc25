package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"unsafe"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// HeadPrefix says whether data begins with the bytes HEAD holds at
// ch.Path, and how many they are: the first size bytes of data, hashed as
// a blob, give HEAD's blob id exactly when they are its bytes. HEAD's blob
// is not inflated (a committed log that `git gc` packed costs about five
// times its hashing to inflate): its size comes from its header, or from
// its delta's. Only what git alone can read is read whole, through git.
// ok is false when HEAD has nothing at the path; size is -1 when data does
// not begin with HEAD's bytes.
func (c *Content) HeadPrefix(ch Change, data []byte) (size int64, ok bool, err error) {
	if ch.Head == "" {
		return -1, false, nil
	}
	if oid, err := hex.DecodeString(ch.Head); err == nil && len(oid) == oidLen {
		if size, err := c.objects.Size(oid); err == nil {
			if size > int64(len(data)) || c.hashBlob(data[:size], nil) != ch.Head {
				return -1, true, nil
			}
			return size, true, nil
		}
	}
	head, ok, err := c.Head(ch)
	if err != nil || !ok || !bytes.HasPrefix(data, head) {
		return -1, ok, err
	}
	return int64(len(head)), true, nil
}

// hashBlob is the blob id of data, hashed a window at a time, each
// dropped once read (when data is a mapping of ours): the hook's memory
// stays flat whatever the file's size. seen, when not nil, hears every
// byte.
func (c *Content) hashBlob(data []byte, seen Sink) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	for rest := data; len(rest) > 0; {
		n := min(len(rest), hashWindow)
		mapfile.Populate(rest[:n])
		h.Write(rest[:n])
		if seen != nil {
			seen.Write(rest[:n])
		}
		c.Forget(rest[:n])
		rest = rest[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Size returns the size of the object id's content from its header (for
// a deltified object, from its delta's header), inflating only those few
// bytes; IsNotInProcess(err) when only git can read it.
func (o *Objects) Size(id []byte) (int64, error) {
	_, size, err := o.reader().header(id, false)
	return size, err
}

// sizeAt is the size of the content of the pack entry at off: its
// header's, or for a delta the result size its delta begins with.
func (p *packFile) sizeAt(off int64) (int64, error) {
	typ, size, br, err := p.entryHeader(off)
	if err != nil || typ != 6 && typ != 7 {
		return int64(size), err
	}
	if _, _, err := p.deltaBase(br, off, typ); err != nil {
		return 0, err
	}
	z, err := zlibFrom(br)
	if err != nil {
		return 0, fmt.Errorf("%s at %d: %w", p.path, off, err)
	}
	defer inflaters.Put(z)
	head := make([]byte, 2*binary.MaxVarintLen64)
	n, _ := io.ReadFull(z, head)
	_, a := binary.Uvarint(head[:n])
	if a <= 0 {
		return 0, fmt.Errorf("%s at %d: bad delta header", p.path, off)
	}
	dst, b := binary.Uvarint(head[a:n])
	if b <= 0 || dst > 1<<62 {
		return 0, fmt.Errorf("%s at %d: bad delta header", p.path, off)
	}
	return int64(dst), nil
}

// Forget drops from memory the pages of data already read, when data is
// part of a worktree file this Content mapped (see StagedFile); anything
// else is left alone. A caller walking a staged log of any size once
// keeps only its current window resident.
func (c *Content) Forget(data []byte) {
	if len(data) == 0 {
		return
	}
	for _, m := range c.mapped {
		if within(data, m) {
			mapfile.Forget(data)
			return
		}
	}
}

// within reports whether part lies inside whole.
func within(part, whole []byte) bool {
	if len(whole) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(whole)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
	return p >= start && p+uintptr(len(part)) <= start+uintptr(len(whole))
}
