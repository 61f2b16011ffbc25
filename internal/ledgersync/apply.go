package ledgersync

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/jsonline"
	"github.com/git-queen/git-queen/internal/ledger"
	"github.com/git-queen/git-queen/internal/store"
)

// apply appends to received/ the versions that the merge into merged
// brought (what merged holds that local does not) and that are the newest
// this clone knows of their record, so that the last line of each id in
// received/ is its newest version there, the order readers rely on.
// Versions older than one this clone has (by the version index, caught up
// to local, and by what this merge applied already) stay in the ledger
// only. It goes chunk by chunk, so a clone joining a large ledger holds
// one chunk at a time, and counts what came in r.received.
//
// The sizes of the received logs are written to the state before the
// first line is appended: if the process dies before the ledger ref moves,
// the next sync cuts them back (see loadState) and applies the merge again.
func (s *Syncer) apply(tx *jsonl.Tx, st *state, start, local, merged plumbing.Hash, r *round) error {
	idx := s.index()
	if err := idx.catchUp(s.ledger, local); err != nil {
		return err
	}
	applied := map[string]string{} // id -> the version key this merge applied
	_, err := s.ledger.EachChange(local, merged, func(file string, lines [][]byte) error {
		if dir, ok := ledger.DirOf(file); ok {
			r.received[dir] += len(lines)
		}
		fresh, err := newestOnly(idx, lines, applied)
		if err != nil || len(fresh) == 0 {
			return err
		}
		if st.Applying == nil {
			st.Applying = &applying{From: start.String(), To: local.String(), Received: map[string]int64{}}
			for _, l := range ledger.Logs {
				st.Applying.Received[l.File] = sizeOf(store.ReceivedPath(s.S.WS, l.File))
			}
			if err := st.save(s.dir()); err != nil {
				return err
			}
		}
		out := make([]any, len(fresh))
		for i, l := range fresh {
			out[i] = l
		}
		return tx.Append(s.S.ReceivedLog(file), out...)
	})
	return err
}

// newestOnly keeps, of the incoming versions of each record, the newest,
// and only if it is newer than what the index (when there is one) and
// applied (what the caller applied before; updated) know;
// lines without an id or a time are kept, and lines that are not JSON
// objects (which no reader could use) stay in the ledger only.
func newestOnly(idx *versionIndex, lines [][]byte, applied map[string]string) ([][]byte, error) {
	type best struct {
		at  int
		key string
	}
	byID := map[string]best{}
	var ids []string
	for i, line := range lines {
		id, key, ok := versionOf(line)
		if !ok {
			continue
		}
		b, seen := byID[id]
		if !seen {
			ids = append(ids, id)
		}
		if !seen || key >= b.key {
			byID[id] = best{i, key}
		}
	}
	known := map[string]string{}
	if idx != nil {
		var err error
		if known, err = idx.newest(ids); err != nil {
			return nil, err
		}
	}
	var out [][]byte
	for i, line := range lines {
		id, _, ok := versionOf(line)
		if !ok {
			if jsonline.ObjectFields(line, nil, nil) == nil {
				out = append(out, line) // a record without a time: kept
			}
			continue // not a record at all: it stays in the ledger only
		}
		if b := byID[id]; b.at == i && b.key > known[id] && b.key > applied[id] {
			out = append(out, line)
			if applied != nil {
				applied[id] = b.key
			}
		}
	}
	return out, nil
}

func sizeOf(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}
