package gitrepo

import (
	"errors"
	"path/filepath"
	"sync"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// Objects reads objects of a repository in process: loose ones, packed ones
// (packs and their indexes are mapped, and an index is searched, never
// read whole), and alternates. The ledger reads its chunks, trees and
// commits through it: a process that decoded a large repository's pack
// index to find one ledger object would pay for the whole history.
//
// It also serves the ledger, whose objects are input from other clones:
// ReadWithGit and HeaderWithGit list the packs again and then ask `git
// cat-file` where the in-process read declines, and say what went wrong
// in a type the caller can tell apart (missing, too large, git failing);
// Write writes loose objects. Those three are for one goroutine at a time.
type Objects struct {
	commonDir, dir string
	mu             sync.Mutex
	r              *objectReader
	old            []*objectReader // replaced by Refresh, closed by Close
	git            *Blobs          // started by the first read that needs it
	gitMu          sync.Mutex      // one read through git at a time: reads run concurrently
}

// OpenObjects reads the objects of the repository whose common git
// directory is commonDir.
func OpenObjects(commonDir string) *Objects {
	dir := filepath.Join(commonDir, "objects")
	return &Objects{commonDir: commonDir, dir: dir, r: newObjectReader(dir)}
}

// Read returns an object's type ("blob", "tree", "commit", "tag") and
// content.
func (o *Objects) Read(id []byte) (kind string, data []byte, err error) { return o.reader().read(id) }

// reader is the reader of the packs as last listed (see Refresh).
func (o *Objects) reader() *objectReader {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.r
}

// Refresh lists the packs again, for objects a fetch or a gc has packed
// since they were first listed. A read under way keeps its packs mapped.
func (o *Objects) Refresh() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.old = append(o.old, o.r)
	o.r = newObjectReader(o.dir)
}

// Forget drops the pages of the mapped packs from this process's memory
// (the page cache keeps them): for a caller that touched much of a pack
// (the headers of every object it will read, each once, after).
func (o *Objects) Forget() {
	for _, p := range o.reader().packList() {
		if p.mapped {
			mapfile.Forget(p.data)
		}
	}
}

// Close releases the mapped packs, and stops git if a read started it.
func (o *Objects) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range append(o.old, o.r) {
		r.close()
	}
	o.old = nil
	if o.git != nil {
		return o.git.Close()
	}
	return nil
}

// IsNotInProcess reports whether err means "ask git": a read Objects cannot
// do itself, of an object it does not find (it may be in a pack written
// since, or only git can see it), or on a system where packs cannot be
// mapped. `git cat-file` can answer instead.
func IsNotInProcess(err error) bool { return errors.Is(err, errUnsupported) }
