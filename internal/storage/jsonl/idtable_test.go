package jsonl

import (
	"fmt"
	"hash/maphash"
	"testing"
)

func TestIDTableFindsWhatItHolds(t *testing.T) {
	var table idTable
	const n = 50000 // grows every part several times
	for i := range n {
		c, seen := table.slot(hashID(fmt.Sprint("id-", i)))
		if seen {
			t.Fatalf("id-%d seen before it was put", i)
		}
		c.set(current{no: int32(i + 1)})
	}
	for i := range n {
		c, seen := table.slot(hashID(fmt.Sprint("id-", i)))
		if !seen || c.no != int32(i+1) {
			t.Fatalf("id-%d: seen %v, line %d", i, seen, c.no)
		}
		c.no += n
	}
	if table.len() != n {
		t.Fatalf("len = %d, want %d", table.len(), n)
	}
	lines := map[int32]bool{}
	for c := range table.all() {
		lines[c.no] = true
	}
	for i := range n {
		if !lines[int32(i+1+n)] {
			t.Fatalf("all() lacks the update of id-%d (line %d)", i, i+1+n)
		}
	}
	if len(lines) != n {
		t.Fatalf("all() yields %d versions, want %d", len(lines), n)
	}
}

// Ids whose hashes share every bit the directory splits on: the part
// grows instead, and every id is still found.
func TestIDTableGrowsAPartItCannotSplit(t *testing.T) {
	defer func(d uint) { idMaxDepth = d }(idMaxDepth)
	idMaxDepth = 3
	var table idTable
	const n = 5000
	for i := range n {
		c, seen := table.slot(idHash{uint64(i) * 0x9e3779b97f4a7c15, 0xabcd << 48})
		if seen {
			t.Fatalf("id %d seen before it was put", i)
		}
		c.set(current{no: int32(i + 1)})
	}
	for i := range n {
		c, seen := table.slot(idHash{uint64(i) * 0x9e3779b97f4a7c15, 0xabcd << 48})
		if !seen || c.no != int32(i+1) {
			t.Fatalf("id %d: seen %v, line %d", i, seen, c.no)
		}
	}
	if table.depth > idMaxDepth || table.len() != n {
		t.Fatalf("depth %d, len %d", table.depth, table.len())
	}
}

// hashID is the hash of an id, as the plan hashes one (hashLine of its bytes).
func hashID(id string) idHash {
	return idHash{maphash.String(idSeeds[0], id), maphash.String(idSeeds[1], id)}
}
