package app

import (
	"os"

	"github.com/git-queen/git-queen/internal/domain/work"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// addBeads adds the open work of the tracker at path (named rel) to pool.
// It reads the file each time: picking the fields without decoding makes
// a 10,000-issue tracker cost a few milliseconds, which no cache of ours
// needs to save (issue 27 removes caches rather than adding them). It
// reads the file into memory rather than mapping it: the pool keeps
// slices of it until the listing is made, and a tracker rewritten in
// place meanwhile (cp over it, a tool that truncates and writes) would
// make a mapping fault (SIGBUS) and kill the process; the copy costs
// about a millisecond for 4 MB. release is kept for the callers' shape.
func (e *Env) addBeads(_ *store.Store, pool *work.Pool, path, rel string) (release func(), err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p work.Pool
	p.AddBeads(rel, data)
	pool.Add(&p)
	return func() {}, nil
}
