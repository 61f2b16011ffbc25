package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// InspectWithin bounds what a round reads of a pushed commit: chunks many
// and small (one empty blob named a hundred times, as a push of a
// million of them costs 180 KB) are damage once past limit/MinChunkAverage,
// where Inspect read them all and passed them; and the walk stops once the
// new chunks' bytes are past limit, saying so by newBytes.
func TestInspectWithinBoundsChunksAndBytes(t *testing.T) {
	l, repo := open(t)
	nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	good, err := l.Record(gitobject.ZeroID, Lines{records.ReservationsFile: {msg("qr-1", nov, "a")}}, sig, "good")
	if err != nil {
		t.Fatal(err)
	}
	format := object(t, repo, "blob", []byte(formatLine))
	commitOfChunks := func(blobs []gitobject.ID) gitobject.ID {
		var entries []any
		for i, b := range blobs {
			entries = append(entries, fmt.Sprintf("100644 %02d.jsonl", i), b)
		}
		hundred := object(t, repo, "tree", rawTree(entries...))
		month := object(t, repo, "tree", rawTree("40000 000", hundred))
		log := object(t, repo, "tree", rawTree("40000 2026-01", month))
		return commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", format, "40000 messages", log)), good)
	}
	empty := object(t, repo, "blob", nil)
	var empties []gitobject.ID
	for range 100 {
		empties = append(empties, empty)
	}
	many := commitOfChunks(empties)

	const small = 4 * MinChunkAverage // room for 4 chunks
	_, err = l.InspectWithin(good, many, small)
	var d *DamageError
	if !errors.As(err, &d) || d.Commit != many || !strings.Contains(d.Reason, "more than 4 new chunks holding 0 bytes") {
		t.Fatalf("InspectWithin of 100 empty chunks with room for 4: %v; want damage naming the count", err)
	}
	if n, err := l.InspectWithin(good, many, 1<<30); err != nil || n != 0 {
		t.Fatalf("InspectWithin of 100 empty chunks with room for 65,536: %d, %v; want none new, no damage", n, err)
	}

	var full []gitobject.ID
	for i := range 10 {
		full = append(full, object(t, repo, "blob", bytes.Repeat([]byte{byte('a' + i)}, ChunkSize)))
	}
	big := commitOfChunks(full)
	n, err := l.InspectWithin(good, big, 3*ChunkSize)
	if err != nil || n <= 3*ChunkSize || n > 4*ChunkSize {
		t.Fatalf("InspectWithin of 10 full chunks with room for 3: %d, %v; want past the limit, read no further than one chunk past it", n, err)
	}
	if n, err := l.Inspect(good, big); err != nil || n != 10*ChunkSize {
		t.Fatalf("Inspect of 10 full chunks: %d, %v", n, err)
	}
}
