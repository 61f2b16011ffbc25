package jsonl

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// cursorIndex writes an index of n entries with random keys to a file in
// dir and opens it, mapped (where the system maps) or read into the heap;
// keys are its entries'.
func cursorIndex(t *testing.T, dir string, n int, mapped bool, rng *rand.Rand) (*Index, []idKey) {
	t.Helper()
	entries := make([]indexEntry, n)
	for i := range entries {
		entries[i] = indexEntry{key: idKey{rng.Uint64(), rng.Uint64()}, offset: int64(i) * 100, nanos: rng.Int64()}
	}
	sortEntries(entries)
	path := filepath.Join(dir, fmt.Sprintf("ix-%d-%v", n, mapped))
	err := writeIndex(path, logState{}, nil, func(put func(indexEntry)) error {
		for _, e := range entries {
			put(e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ix *Index
	if mapped {
		var ok bool
		if ix, ok = readIndex(path); !ok || ix.mapped != mapfile.Mapped {
			t.Fatalf("the index is not read back as mapfile maps (read %v)", ok)
		}
	} else {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		if ix, ok = parseIndex(data); !ok {
			t.Fatal("the index is not read back")
		}
		ix.release = func() {}
	}
	t.Cleanup(ix.Close)
	keys := make([]idKey, n)
	for i, e := range entries {
		keys[i] = e.key
	}
	return ix, keys
}

// A cursor answers every key as a binary search of the sorted part does
// (lookupSorted): keys held and not, below the first and past the last,
// dense and sparse, asked in order and, once, out of it; on a mapped index
// whose pages it drops as it passes them and on one read into the heap,
// whose bytes it must not drop; and a second cursor over the same index
// answers the same again.
func TestSortedCursorAnswersAsABinarySearch(t *testing.T) {
	defer func(n int) { cursorForgetEvery = n }(cursorForgetEvery)
	cursorForgetEvery = 64
	rng := rand.New(rand.NewPCG(7, 11))
	after := func(a idKey) idKey { // a key that sorts just after a: random keys leave room
		if a[1] < ^uint64(0) {
			return idKey{a[0], a[1] + 1}
		}
		return idKey{a[0] + 1, 0}
	}
	for _, tt := range []struct {
		name string
		n    int
		ask  func(keys []idKey) []idKey
	}{
		{"every key", 5000, func(keys []idKey) []idKey { return keys }},
		{"every third key", 5000, func(keys []idKey) []idKey {
			var out []idKey
			for i := 0; i < len(keys); i += 3 {
				out = append(out, keys[i])
			}
			return out
		}},
		{"a few keys far apart", 5000, func(keys []idKey) []idKey { return []idKey{keys[0], keys[1700], keys[4998], keys[4999]} }},
		{"keys held and keys between them", 3000, func(keys []idKey) []idKey {
			var out []idKey
			for i, k := range keys[:len(keys)-1] {
				if i%2 == 0 {
					out = append(out, k)
				}
				if i%5 == 0 {
					out = append(out, after(k))
				}
			}
			return out
		}},
		{"below the first and past the last", 1000, func(keys []idKey) []idKey {
			return []idKey{{0, 0}, keys[0], keys[999], {^uint64(0), ^uint64(0)}}
		}},
		{"keys no entry holds", 4000, func(keys []idKey) []idKey {
			var out []idKey
			for i := 0; i < len(keys)-1; i += 7 {
				out = append(out, after(keys[i]))
			}
			return out
		}},
		{"out of order once", 4000, func(keys []idKey) []idKey {
			return append(slices.Clone(keys[2000:2500]), keys[10:400]...)
		}},
		{"repeated keys", 2000, func(keys []idKey) []idKey { return []idKey{keys[5], keys[5], keys[900], keys[900], keys[1999]} }},
		{"one entry", 1, func(keys []idKey) []idKey { return []idKey{{0, 0}, keys[0], {^uint64(0), 1}} }},
		{"an empty index", 0, func([]idKey) []idKey { return []idKey{{0, 0}, {5, 5}} }},
	} {
		for _, mapped := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/mapped=%v", tt.name, mapped), func(t *testing.T) {
				ix, keys := cursorIndex(t, t.TempDir(), tt.n, mapped, rng)
				ask := tt.ask(keys)
				want := make([]indexEntry, len(ask))
				held := make([]bool, len(ask))
				for i, k := range ask {
					want[i], held[i] = ix.lookupSorted(k)
				}
				for pass := range 2 {
					c := sortedCursor{ix: ix}
					for i, k := range ask {
						if e, ok := c.find(k); e != want[i] || ok != held[i] {
							t.Fatalf("pass %d, key %d of %d (%x): the cursor finds %+v %v, a binary search %+v %v",
								pass, i, len(ask), k, e, ok, want[i], held[i])
						}
					}
				}
			})
		}
	}
}
