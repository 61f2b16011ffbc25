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

// InspectWithin bounds what a round reads of a pushed commit: chunks or
// directories many and small (one empty blob or tree named again and
// again: a push of a million costs 180 KB) are damage once past
// limit/MinChunkAverage entries (never fewer than 4,096), where Inspect
// read them all and passed them; a commit whose new chunks' bytes are
// past limit says so by newBytes, counted to its end so that the caller
// can say how much it brings, or, past that many entries, no further (no
// damage: it is over the bound either way).
func TestInspectWithinBoundsChunksAndBytes(t *testing.T) {
	l, repo := open(t)
	nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	good, err := l.Record(gitobject.ZeroID, Lines{records.ReservationsFile: {msg("qr-1", nov, "a")}}, sig, "good")
	if err != nil {
		t.Fatal(err)
	}
	format := object(t, repo, "blob", []byte(formatLine))
	commitOfChunks := func(blobs []gitobject.ID) gitobject.ID { // in one directory
		var entries []any
		for i, b := range blobs {
			entries = append(entries, fmt.Sprintf("100644 %02d.jsonl", i), b)
		}
		hundred := object(t, repo, "tree", rawTree(entries...))
		month := object(t, repo, "tree", rawTree("40000 000", hundred))
		log := object(t, repo, "tree", rawTree("40000 2026-01", month))
		return commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", format, "40000 messages", log)), good)
	}
	// One empty blob named 5,000 times (50 directories of the same 100),
	// past the 4,096 entries any round may read: at 16 KiB of room per
	// entry, a limit of 16 MiB leaves room for 1,024 only, and so the
	// floor holds.
	empty := object(t, repo, "blob", nil)
	var chunks []any
	for i := range 100 {
		chunks = append(chunks, fmt.Sprintf("100644 %02d.jsonl", i), empty)
	}
	commitOfMonth := func(hundred gitobject.ID, n int) gitobject.ID {
		var hundreds []any
		for i := range n {
			hundreds = append(hundreds, fmt.Sprintf("40000 %03d", i), hundred)
		}
		month := object(t, repo, "tree", rawTree(hundreds...))
		log := object(t, repo, "tree", rawTree("40000 2026-01", month))
		return commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", format, "40000 messages", log)), good)
	}
	many := commitOfMonth(object(t, repo, "tree", rawTree(chunks...)), 50)
	const small = 16 << 20
	_, err = l.InspectWithin(good, many, small)
	var d *DamageError
	if !errors.As(err, &d) || d.Commit != many || !strings.Contains(d.Reason, "more than 4096 new chunks and directories, holding 0 bytes") {
		t.Fatalf("InspectWithin of 5,000 empty chunks with room for 4,096 entries: %v; want damage naming the count", err)
	}
	if n, err := l.InspectWithin(good, many, 1<<30); err != nil || n != 0 {
		t.Fatalf("InspectWithin of 5,000 empty chunks with room for 65,536 entries: %d, %v; want none new, no damage", n, err)
	}
	// Directories with nothing in them (git-queen writes none): 1.9
	// million took a sync 90 s.
	dirs := commitOfMonth(object(t, repo, "tree", nil), 1000)
	if _, err = l.InspectWithin(good, dirs, 1<<20); err != nil {
		t.Fatalf("InspectWithin of 1,000 empty directories: %v; want them read (fewer than 4,096)", err)
	}
	var months []any
	for i := range 5 {
		months = append(months, fmt.Sprintf("40000 %04d-01", 2020+i), firstMonth(t, l, dirs))
	}
	moreDirs := commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", format, "40000 messages", object(t, repo, "tree", rawTree(months...)))), good)
	if _, err = l.InspectWithin(good, moreDirs, 1<<20); !errors.As(err, &d) || !strings.Contains(d.Reason, "more than 4096 new chunks and directories") {
		t.Fatalf("InspectWithin of 5,000 empty directories: %v; want damage", err)
	}

	var full []gitobject.ID
	for i := range 10 {
		full = append(full, object(t, repo, "blob", bytes.Repeat([]byte{byte('a' + i)}, ChunkSize)))
	}
	big := commitOfChunks(full)
	n, err := l.InspectWithin(good, big, 3*ChunkSize)
	if err != nil || n != 10*ChunkSize {
		t.Fatalf("InspectWithin of 10 full chunks with room for 3: %d, %v; want all 10 counted, no damage", n, err)
	}
	// A commit over the bound that is damaged after its bytes passed it
	// is damage (set aside, and pushed over), as any damaged commit is:
	// the count reads on to the damage.
	damaged := []any{}
	for i, b := range full {
		damaged = append(damaged, fmt.Sprintf("100644 %02d.jsonl", i), b)
	}
	overAndDamaged := commitOfMonth(object(t, repo, "tree", rawTree(append(damaged, "100644 zz.jsonl", full[0])...)), 1)
	if _, err := l.InspectWithin(good, overAndDamaged, 3*ChunkSize); !errors.As(err, &d) || !strings.Contains(d.Reason, `"zz.jsonl" is not a name`) {
		t.Fatalf("InspectWithin of 10 full chunks and a misnamed one with room for 3: %v; want the damage", err)
	}
	// 5,000 full chunks (the 10 named again and again), past the 4,096
	// entries a round reads, and past the bytes first: counted to 4,096.
	var fullChunks []any
	for i := range 100 {
		fullChunks = append(fullChunks, fmt.Sprintf("100644 %02d.jsonl", i), full[i%10])
	}
	manyFull := commitOfMonth(object(t, repo, "tree", rawTree(fullChunks...)), 50)
	if n, err := l.InspectWithin(good, manyFull, 3*ChunkSize); err != nil || n <= 3*ChunkSize || n > 4096*ChunkSize {
		t.Fatalf("InspectWithin of 5,000 full chunks with room for 3: %d, %v; want past the limit, counted within 4,096 entries, no damage", n, err)
	}
	if n, err := l.Inspect(good, big); err != nil || n != 10*ChunkSize {
		t.Fatalf("Inspect of 10 full chunks: %d, %v", n, err)
	}
}

// firstMonth is the tree of the first month of messages in commit.
func firstMonth(t *testing.T, l *Ledger, commit gitobject.ID) gitobject.ID {
	t.Helper()
	root, err := l.TreeOf(commit)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"messages", "2026-01"} {
		tr, err := l.readTree(root)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := tr.Get(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		root = e.ID
	}
	return root
}
