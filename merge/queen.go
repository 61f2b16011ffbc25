package merge

import (
	"slices"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/records"
)

// UnionStore merges versions of a QueenBee store (queen_messages,
// queen_assignments, queen_reservations): the union of record versions,
// keyed by ULID id. Each side's order of versions is kept; versions two
// sides wrote concurrently are ordered by when they were written
// (records.VersionKey), so the last line for an id is its latest version in
// every merge and every reader. Any number of sides may be merged at once.
func UnionStore(base []byte, sides ...[]byte) []byte {
	return unionWith(base, sides, queenConfig(nil))
}

func queenConfig(drop func([]byte) bool) unionConfig {
	return unionConfig{key: queenKey, drop: drop, settle: latestLast}
}

// latestLast makes the newest added version of each record the last line
// of that record. Interleaving the sides keeps each side's order, and when
// a line both sides added pins the order (a cherry-pick), an older version
// from one side can land after a newer one from the other; readers take a
// record's last line as its state. So the added versions of each id are
// sorted by VersionKey among the positions that id already has: nothing
// else moves, and equal keys keep their order.
func latestLast(added [][]byte) {
	positions := map[string][]int{}
	keys := []string{jsonl.DefaultKey}
	vals := make([][]byte, 1)
	for i, l := range added {
		if jsonl.ObjectFields(l, keys, vals) != nil {
			continue
		}
		if id, ok := jsonl.String(vals[0]); ok && id != "" {
			positions[id] = append(positions[id], i)
		}
	}
	for _, pos := range positions {
		if len(pos) < 2 {
			continue
		}
		lines := make([][]byte, len(pos))
		for i, p := range pos {
			lines[i] = added[p]
		}
		slices.SortStableFunc(lines, func(a, b []byte) int {
			ka, kb := records.VersionKey(a), records.VersionKey(b)
			switch {
			case ka < kb:
				return -1
			case ka > kb:
				return 1
			}
			return 0
		})
		for i, p := range pos {
			added[p] = lines[i]
		}
	}
}
