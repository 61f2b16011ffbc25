package app

import (
	"errors"
	"fmt"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/domain/work"
)

// addBeads adds the open work of the tracker at path (named rel) to pool.
// It reads the file each time: picking the fields without decoding makes
// a 10,000-issue tracker cost a few milliseconds, which no cache of ours
// needs to save (issue 27 removes caches rather than adding them). It
// reads the file into memory rather than mapping it: the pool keeps
// slices of it until the listing is made, and a tracker rewritten in
// place meanwhile (cp over it, a tool that truncates and writes) would
// make a mapping fault (SIGBUS) and kill the process; the copy costs
// about a millisecond for 4 MB.
//
// Only a regular file is read: a symbolic link committed in its place can
// point at a device (/dev/zero, read until memory runs out) or a pipe
// (which never ends).
func addBeads(pool *work.Pool, path, rel string) error {
	data, err := regular.Read(path, 0)
	if nr, ok := errors.AsType[*regular.NotRegularError](err); ok {
		return fmt.Errorf("%s is not a regular file but %s; ready reads the tracker only from a file: put the issues file there, or remove what is in its place", rel, nr.Kind)
	}
	if err != nil {
		return err
	}
	var p work.Pool
	p.AddBeads(rel, data)
	pool.Add(&p)
	return nil
}
