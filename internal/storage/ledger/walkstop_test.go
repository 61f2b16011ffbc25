package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// However a walk stops (fn's error, a chunk that cannot be read, a panic
// in fn that a caller recovers, as the MCP server does), it leaves no
// reader behind: the goroutines running after it are those before it.
func TestAStoppedWalkLeavesNoReader(t *testing.T) {
	l, repo := open(t)
	nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	format := object(t, repo, "blob", []byte(formatLine))
	n, bad := 4*readAhead(), readAhead()+2
	var entries []any
	for i := range n {
		chunk := object(t, repo, "blob", append(msg(fmt.Sprintf("qm-%02d", i), nov, strings.Repeat("x", 300)), '\n'))
		entries = append(entries, fmt.Sprintf("100644 %02d.jsonl", i), chunk)
	}
	tree := func(entries []any) gitobject.ID {
		hundred := object(t, repo, "tree", rawTree(entries...))
		month := object(t, repo, "tree", rawTree("40000 000", hundred))
		log := object(t, repo, "tree", rawTree("40000 2026-11", month))
		return commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", format, "40000 messages", log)))
	}
	whole := tree(entries)
	// A damaged chunk in the middle: a loose object whose bytes are not
	// zlib, as a disk error or a hostile copy leaves one.
	damaged := object(t, repo, "blob", []byte("a chunk about to be damaged\n"))
	loose := filepath.Join(repo, ".git", "objects", damaged.String()[:2], damaged.String()[2:])
	os.Chmod(loose, 0o644)
	if err := os.WriteFile(loose, []byte("not zlib at all, not an object"), 0o644); err != nil {
		t.Fatal(err)
	}
	withDamage := append([]any(nil), entries...)
	withDamage[2*bad+1] = damaged
	broken := tree(withDamage)

	prepare := func(c Chunk) int { return len(c.Lines) }
	walk := func(tip gitobject.ID, fn func(int) error) (seen int, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		_, err = EachChangePrepared(l, gitobject.ZeroID, tip, prepare, func(Chunk, int) error {
			seen++
			return fn(seen)
		})
		return seen, err
	}
	// Readers end once the walk closes their queue; a leaked one waits
	// for ever, which this generous bound catches.
	settles := func(t *testing.T, want int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > want {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Fatalf("%d goroutines run after the walk, %d before:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	before := runtime.NumGoroutine()
	if seen, err := walk(whole, func(int) error { return nil }); err != nil || seen != n {
		t.Fatalf("a whole walk saw %d chunks of %d: %v", seen, n, err)
	}
	settles(t, before)

	stop := errors.New("enough")
	cases := []struct {
		name string
		tip  gitobject.ID
		fn   func(int) error
		want func(seen int, err error) bool
	}{
		{"fn fails", whole, func(i int) error {
			if i == 3 {
				return stop
			}
			return nil
		}, func(seen int, err error) bool { return errors.Is(err, stop) && seen == 3 }},
		{"a chunk is damaged", broken, func(int) error { return nil }, func(seen int, err error) bool {
			var d *DamageError
			return errors.As(err, &d) && strings.Contains(d.Path, fmt.Sprintf("%02d.jsonl", bad)) && seen == bad
		}},
		{"fn panics", whole, func(i int) error {
			if i == 2 {
				panic("a bug in fn")
			}
			return nil
		}, func(seen int, err error) bool {
			return err != nil && strings.Contains(err.Error(), "a bug in fn") && seen == 2
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen, err := walk(tc.tip, tc.fn)
			if !tc.want(seen, err) {
				t.Fatalf("fn saw %d chunks; the walk returned %v", seen, err)
			}
			settles(t, before+1) // and this subtest's own
		})
	}
}

// A walk starts one reader a core up to maxReaders, and reads ahead four
// a reader: what it holds does not grow with the machine.
func TestAWalksReadersAreBoundedWhateverTheCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct{ procs, readers int }{{1, 1}, {2, 2}, {maxReaders, maxReaders}, {maxReaders + 1, maxReaders}, {64, maxReaders}} {
		runtime.GOMAXPROCS(tc.procs)
		if got := cores(); got != tc.readers {
			t.Errorf("GOMAXPROCS %d: %d readers, want %d", tc.procs, got, tc.readers)
		}
		if got := readAhead(); got != 4*tc.readers {
			t.Errorf("GOMAXPROCS %d: %d chunks read ahead, want %d", tc.procs, got, 4*tc.readers)
		}
	}
}
