package ledger

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// EachChangePrepared prepares chunks on several goroutines at once, yet fn
// sees every chunk once, in the tree's order (log, month, chunk), with
// what prepare made of that very chunk.
func TestEachChangePreparedKeepsTheOrder(t *testing.T) {
	l, _ := open(t)
	oct := time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC)
	nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	var want []string
	var c gitobject.ID
	var err error
	for _, at := range []time.Time{oct, nov} { // each month fills about 20 chunks
		var batch [][]byte
		for i := range 3000 {
			batch = append(batch, msg(fmt.Sprintf("qm-%s-%05d", at.Month(), i), at, strings.Repeat("x", 400)))
			want = append(want, string(batch[i]))
		}
		if c, err = l.Record(c, Lines{records.MessagesFile: batch}, sig, "batch"); err != nil {
			t.Fatal(err)
		}
	}
	assignment := msg("qa-1", nov, "a")
	if c, err = l.Record(c, Lines{records.AssignmentsFile: {assignment}}, sig, "one more"); err != nil {
		t.Fatal(err)
	}
	want = append([]string{string(assignment)}, want...) // "assignments" sorts first

	prepare := func(c Chunk) string { return fmt.Sprintf("%s %s %d %s", c.File, c.Month, len(c.Lines), c.Lines[0]) }
	var got []string
	chunks := 0
	removed, err := EachChangePrepared(l, gitobject.ZeroID, c, prepare, func(chunk Chunk, prepared string) error {
		if prepared != prepare(chunk) {
			t.Fatalf("chunk %d came with another chunk's preparation", chunks)
		}
		if month := chunk.Month + "-03"; !strings.Contains(string(chunk.Lines[0]), month) {
			t.Fatalf("chunk %d of month %s holds %.60s", chunks, chunk.Month, chunk.Lines[0])
		}
		chunks++
		for _, line := range chunk.Lines {
			got = append(got, string(line))
		}
		return nil
	})
	if err != nil || removed {
		t.Fatalf("EachChangePrepared: removed %v, %v", removed, err)
	}
	if chunks < 2*readAhead() {
		t.Fatalf("only %d chunks: the test reads none ahead", chunks)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("line %d is %.40s, want %.40s", i, got[i], want[i])
		}
	}

	// fn's error stops the walk: fn is not called again, and the error
	// comes back as it was.
	stop := errors.New("enough")
	calls := 0
	_, err = EachChangePrepared(l, gitobject.ZeroID, c, prepare, func(Chunk, string) error {
		if calls++; calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Fatalf("after fn failed on the third chunk: %d calls, %v", calls, err)
	}
}

// A chunk that cannot be read, among chunks read ahead of it, stops the
// walk where it is, as a walk one chunk at a time would: the chunks before
// it reach fn, those after it do not, and the damage names its place.
func TestEachChangePreparedStopsAtADamagedChunk(t *testing.T) {
	l, repo := open(t)
	nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	format := object(t, repo, "blob", []byte(formatLine))
	entries := []any{}
	for i := range 3 * readAhead() {
		chunk := object(t, repo, "blob", append(msg(fmt.Sprintf("qm-%02d", i), nov, "a"), '\n'))
		if i == readAhead()+1 {
			chunk = missingID
		}
		entries = append(entries, fmt.Sprintf("100644 %02d.jsonl", i), chunk)
	}
	hundred := object(t, repo, "tree", rawTree(entries...))
	month := object(t, repo, "tree", rawTree("40000 000", hundred))
	log := object(t, repo, "tree", rawTree("40000 2026-11", month))
	tip := commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", format, "40000 messages", log)))
	var got []string
	_, err := EachChangePrepared(l, gitobject.ZeroID, tip, nil, func(c Chunk, _ struct{}) error {
		got = append(got, string(c.Lines[0]))
		return nil
	})
	var d *DamageError
	if !errors.As(err, &d) || !d.Missing || d.Path != fmt.Sprintf("messages/2026-11/000/%02d.jsonl", readAhead()+1) {
		t.Fatalf("walk over a missing chunk: %v", err)
	}
	if len(got) != readAhead()+1 || !strings.Contains(got[len(got)-1], fmt.Sprintf("qm-%02d", readAhead())) {
		t.Fatalf("fn saw %d chunks before the missing one, want %d", len(got), readAhead()+1)
	}
}
