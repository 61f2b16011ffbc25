package ledger

import (
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// EachChangeRead hands prepare, as Data, exactly the lines EachChangePrepared
// hands as Lines (Subtract's: those of the newer chunk the older lacks,
// counting repeats), whether the newer chunk is new, grows the older by
// appends (read without splitting either) or rewrites it, and so does
// EachChangeOf; it reports removed lines alike; and fn gets neither Data
// nor Lines.
func TestEachChangeReadHandsWhatSubtractLeaves(t *testing.T) {
	l, repo := open(t)
	format := object(t, repo, "blob", []byte(formatLine))
	commit := func(chunk string, has bool) gitobject.ID {
		if !has {
			return commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", format)))
		}
		hundred := object(t, repo, "tree", rawTree("100644 00.jsonl", object(t, repo, "blob", []byte(chunk))))
		month := object(t, repo, "tree", rawTree("40000 000", hundred))
		log := object(t, repo, "tree", rawTree("40000 2026-11", month))
		return commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", format, "40000 messages", log)))
	}
	for _, c := range []struct {
		name     string
		older    string
		hasOlder bool
		newer    string
		want     string // the lines handed over, joined by "|"
		removed  bool
	}{
		{"a new chunk", "", false, "a\nb\n\nc", "a|b|c", false},
		{"grown by appends", "a\nb\n", true, "a\nb\na\nc\n", "a|c", false},
		{"grown, with blank lines", "a\n\n", true, "a\n\n\nb\n", "b", false},
		{"grown from empty", "", true, "a\n", "a", false},
		{"an older chunk without its last newline", "a\nb", true, "a\nbc\n", "bc", true},
		{"repeats reordered", "b\na\n", true, "a\nb\nb\n", "b", false},
		{"shrunk", "a\nb\n", true, "a\n", "", true},
		{"carriage returns stay", "a\r\n", true, "a\r\na\n", "a", false},
		{"only blank lines added", "a\n", true, "a\n\n\n", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			from, to := commit(c.older, c.hasOlder), commit(c.newer, true)
			var want []string
			if c.want != "" {
				want = strings.Split(c.want, "|")
			}
			var read, prepared []string
			removedRead, err := EachChangeRead(l, from, to, func(ch Chunk) []string {
				if ch.Lines != nil {
					t.Errorf("prepare got Lines %q beside Data", ch.Lines)
				}
				var got, again []string
				lines := LinesOf(ch.Data)
				for line := range lines {
					got = append(got, string(line))
				}
				for line := range lines {
					again = append(again, string(line))
				}
				if !slices.Equal(got, again) {
					t.Errorf("LinesOf read %q, then %q", got, again)
				}
				return got
			}, func(ch Chunk, got []string) error {
				if ch.Data != nil || ch.Lines != nil || ch.File != records.MessagesFile || ch.Month != "2026-11" {
					t.Errorf("fn got %+v", ch)
				}
				read = append(read, got...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			removedPrepared, err := EachChangePrepared(l, from, to, nil, func(ch Chunk, _ struct{}) error {
				for _, line := range ch.Lines {
					prepared = append(prepared, string(line))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var ofLog []string
			if err := EachChangeOf(l, records.MessagesFile, from, to, func(ch Chunk) []string {
				var got []string
				for line := range LinesOf(ch.Data) {
					got = append(got, string(line))
				}
				return got
			}, func(_ Chunk, got []string) error {
				ofLog = append(ofLog, got...)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(read, want) || !slices.Equal(prepared, want) || !slices.Equal(ofLog, want) {
				t.Errorf("EachChangeRead handed %q, EachChangePrepared %q, EachChangeOf %q, want %q", read, prepared, ofLog, want)
			}
			if removedRead != c.removed || removedPrepared != c.removed {
				t.Errorf("removed: %v and %v, want %v", removedRead, removedPrepared, c.removed)
			}
			if c.hasOlder {
				rest, extra := Subtract(splitLines([]byte(c.newer)), splitLines([]byte(c.older)))
				var sub []string
				for _, l := range rest {
					sub = append(sub, string(l))
				}
				if !slices.Equal(sub, want) || extra != c.removed {
					t.Errorf("the case is wrong: Subtract leaves %q (removed %v)", sub, extra)
				}
			}
		})
	}
}
