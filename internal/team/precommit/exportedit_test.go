package precommit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// A committed export edited in place by hand, then exported into again
// (which rebuilds the file's index from the edited bytes, or appends to
// them), is not proved by that index: it vouches for the bytes the file
// holds, whose checksum is not the committed blob's, and the rewrite is
// found.
func TestAnEditedExportIsNotProvedByItsRebuiltIndex(t *testing.T) {
	for _, then := range []struct {
		what string
		send []int
	}{
		{"an export with nothing new", nil},
		{"an export that appends", []int{3}},
	} {
		t.Run(then.what, func(t *testing.T) {
			f := newFixture(t)
			export := func(ns ...int) {
				t.Helper()
				var recs []any
				for _, n := range ns {
					recs = append(recs, json.RawMessage(msg(n, 0)))
				}
				if len(recs) > 0 {
					if err := f.s.Update(func(tx *jsonl.Tx) error { return tx.Append(f.s.Log(records.MessagesFile), recs...) }); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := f.s.Export(filepath.Join(f.repo, ".beads"), []string{records.MessagesFile}); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond) // out of git's racy window, as in TestAnExportedLogIsProvedByItsIndex
				f.git(t, "add", "--", logPath)
			}
			export(1, 2)
			if res := f.run(t, "ann"); res.Refused() {
				t.Fatalf("the first export refused: %+v", res)
			}
			f.git(t, "commit", "-q", "--no-verify", "-m", "export")
			committed := string(mustRead(t, f.repo, logPath))
			edited := strings.Replace(committed, "message 1", "massage 1", 1)
			if edited == committed || len(edited) != len(committed) {
				t.Fatal("the fixture's message text changed: no same-size edit made")
			}
			f.stage(t, map[string]string{logPath: edited})
			export(then.send...)
			if got := string(mustRead(t, f.repo, logPath)); !strings.HasPrefix(got, edited) {
				t.Fatalf("the export rewrote the edited file:\n%s", got)
			}
			// The file's index matches the edited file: the hook may ask it.
			worktree := filepath.Join(f.repo, logPath)
			info, err := os.Stat(worktree)
			if err != nil {
				t.Fatal(err)
			}
			ix, ok := jsonl.OpenIndex(f.s.CacheDir(), worktree, info)
			if !ok {
				t.Fatal("the export left no index of the file it exported into")
			}
			ix.Close()
			if res := f.run(t, "ann"); len(res.Rewrites) == 0 {
				t.Fatalf("an edit of the committed export passed once exported into: %+v", res)
			}
		})
	}
}
