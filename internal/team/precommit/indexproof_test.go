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

// A log that `git queen export` only appended to since HEAD's blob was
// staged is proved by the index its appends keep: the committed bytes are
// not read, not even for a checksum. A log edited by another program is
// not: the checksums, or the full check, run.
func TestAnExportedLogIsProvedByItsIndex(t *testing.T) {
	f := newFixture(t)
	sendAndExport := func(ns ...int) {
		t.Helper()
		var recs []any
		for _, n := range ns {
			recs = append(recs, json.RawMessage(msg(n, 0)))
		}
		if err := f.s.Update(func(tx *jsonl.Tx) error { return tx.Append(f.s.Log(records.MessagesFile), recs...) }); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Export(filepath.Join(f.repo, ".beads"), []string{records.MessagesFile}); err != nil {
			t.Fatal(err)
		}
		// Out of git's racy window (a file modified in the same clock
		// tick as the index was written is not trusted by its stat, by
		// git nor by the hook), as a commit made by a person or an agent
		// is: the file system clock ticks every few milliseconds.
		time.Sleep(50 * time.Millisecond)
		f.git(t, "add", "--", logPath)
	}
	sendAndExport(1, 2)
	if res := f.run(t, "ann"); res.Refused() {
		t.Fatalf("the first export refused: %+v", res)
	}
	_, head, ok := f.memoOf(t, logPath)
	if !ok || head.Size != int64(len(mustRead(t, f.repo, logPath))) {
		t.Fatalf("memo of the exported log: %+v (found %v)", head, ok)
	}
	f.git(t, "commit", "-q", "--no-verify", "-m", "export")
	headID := strings.TrimSpace(f.git(t, "rev-parse", "HEAD:"+logPath))

	// HEAD's second checksum made wrong: a proof by checksums would
	// fail, and the full check would run; the index's proof asks only
	// whether the file held the blob's size and CRC-32C after one of its
	// appends.
	dir := memoDir(filepath.Join(f.repo, ".git"))
	head.Sum[1] ^= 1
	forged, _ := json.Marshal(head)
	if err := os.WriteFile(filepath.Join(dir, headID+".json"), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	sendAndExport(3)
	if res := f.run(t, "ann"); res.Refused() {
		t.Fatalf("an exported append refused: %+v", res)
	}
	// The staged blob's checksums continue HEAD's forged ones: the index
	// proved the prefix (checksums of the bytes would not have matched).
	_, staged, ok := f.memoOf(t, logPath)
	if !ok || staged.Sum != head.extended(mustRead(t, f.repo, logPath)) {
		t.Fatalf("the append was not proved by the index: %+v", staged)
	}

	// Another program rewrites a committed line in place: the index does
	// not match the file's stat, and the rewrite is found.
	edited := strings.Replace(string(mustRead(t, f.repo, logPath)), "message 1", "edited 1", 1)
	f.stage(t, map[string]string{logPath: edited})
	if res := f.run(t, "ann"); len(res.Rewrites) == 0 {
		t.Fatalf("an in-place edit after an export passed: %+v", res)
	}
}

func mustRead(t *testing.T, repo, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
