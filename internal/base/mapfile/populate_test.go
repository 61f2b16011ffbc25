package mapfile

import (
	"bytes"
	"os"
	"testing"
)

// Populate is handed memory of any kind: a window of a mapping that
// starts inside a page, and bytes of the heap (the pre-commit hook's blob
// read into memory), at any offset in a page. It must leave every byte
// as it was and name no memory outside data as a Go pointer: below a
// heap slice's page may lie another object, or memory the collector
// knows as no object at all, and `go test -race` (which checks pointer
// arithmetic, -d=checkptr) stops the program that names it.
func TestPopulateTakesMemoryOfAnyKind(t *testing.T) {
	page := os.Getpagesize()
	content := bytes.Repeat([]byte("populate me, "), 3*page/13+5)
	f := openWritten(t, content)
	mapped, release, err := Map(f, int64(len(content)), false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, off := range []int{0, 1, page - 1, page, page + 7, len(content) - 1} {
		Populate(mapped[off:])
		Populate(mapped[off : off+1])
	}
	if !bytes.Equal(mapped, content) {
		t.Fatal("Populate changed the bytes of a mapping")
	}

	for _, size := range []int{1, 7, 48, 100, 404, 4000, page + 3, 3 * page} {
		heap := make([][]byte, 64) // neighbours in one size class
		for i := range heap {
			heap[i] = bytes.Repeat([]byte{byte(i + 1)}, size)
		}
		for i, b := range heap {
			for _, off := range []int{0, 1, size / 2, size - 1} {
				Populate(b[off:])
			}
			if !bytes.Equal(b, bytes.Repeat([]byte{byte(i + 1)}, size)) {
				t.Fatalf("Populate changed the bytes of a heap slice of %d", size)
			}
		}
	}
}
