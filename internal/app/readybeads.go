package app

import (
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/domain/work"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// addBeads adds the open work of the tracker at path (named rel) to pool.
// It reads the file each time: picking the fields without decoding makes
// a 10,000-issue tracker cost a few milliseconds, which no cache of ours
// needs to save (issue 27 removes caches rather than adding them). The
// pool keeps slices of the mapped file until release.
func (e *Env) addBeads(_ *store.Store, pool *work.Pool, path, rel string) (release func(), err error) {
	data, _, unmap, err := mapfile.OpenInfo(path, true)
	if err != nil {
		return nil, err
	}
	if unmap == nil {
		unmap = func() {}
	}
	var p work.Pool
	p.AddBeads(rel, data)
	pool.Add(&p)
	return unmap, nil
}
