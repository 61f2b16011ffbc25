package ledgersync

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/ledger"
	"github.com/git-queen/git-queen/internal/store"
)

// apply appends to received/ the versions that came in with a merge and
// are the newest this clone knows of their record, so that the last line
// of each id in received/ is its newest version there, the order readers
// rely on. Versions older than one this clone has (by the version index,
// caught up to local) stay in the ledger only. Lines that are not records
// are applied as they are: nothing is dropped.
//
// The sizes of the received logs are written to the state first: if the
// process dies before the ledger ref moves, the next sync cuts them back
// (see loadState) and applies the merge again.
func (s *Syncer) apply(tx *jsonl.Tx, st *state, start, local plumbing.Hash, incoming ledger.Lines) error {
	if incoming.Count() == 0 {
		return nil
	}
	idx := s.index()
	if err := idx.catchUp(s.ledger, local); err != nil {
		return err
	}
	fresh := ledger.Lines{}
	for _, file := range incoming.Files() {
		lines, err := newestOnly(idx, incoming[file])
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			fresh[file] = lines
		}
	}
	if fresh.Count() == 0 {
		return nil
	}
	st.Applying = &applying{From: start.String(), To: local.String(), Received: map[string]int64{}}
	for _, file := range fresh.Files() {
		st.Applying.Received[file] = sizeOf(store.ReceivedPath(s.S.WS, file))
	}
	if err := st.save(s.dir()); err != nil {
		return err
	}
	for _, file := range fresh.Files() {
		lines := make([]any, len(fresh[file]))
		for i, l := range fresh[file] {
			lines[i] = l
		}
		if err := tx.Append(s.S.ReceivedLog(file), lines...); err != nil {
			return err
		}
	}
	return nil
}

// newestOnly keeps, of the incoming versions of each record, the newest,
// and only if it is newer than what the index (when there is one) knows;
// lines without an id or a time are kept, and lines that are not JSON
// objects (which no reader could use) stay in the ledger only.
func newestOnly(idx *versionIndex, lines [][]byte) ([][]byte, error) {
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
			if jsonl.ObjectFields(line, nil, nil) == nil {
				out = append(out, line) // a record without a time: kept
			}
			continue // not a record at all: it stays in the ledger only
		}
		if b := byID[id]; b.at == i && b.key > known[id] {
			out = append(out, line)
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
