package merge

import "github.com/git-queen/git-queen/internal/records"

// UnionStore merges versions of a QueenBee store (queen_messages,
// queen_assignments, queen_reservations): the union of record versions,
// keyed by ULID id. Each side's order of versions is kept; versions two
// sides wrote concurrently are ordered by when they were written
// (records.VersionKey), so the last line for an id is its latest version in
// every merge and every reader. Any number of sides may be merged at once:
// the reservation store merges every worktree's log this way.
func UnionStore(base []byte, sides ...[]byte) []byte {
	return Union(base, sides, records.VersionKey)
}
