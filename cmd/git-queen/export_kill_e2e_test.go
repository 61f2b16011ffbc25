//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/testgit"
)

// `git queen export`, killed with SIGKILL at random moments between
// messages sent, leaves an export file that the next export completes: its
// current version of every id is the store's, each line is whole, and an
// export into a fresh directory agrees with it. The store is large enough
// (20,000 messages) that a full export (after a compaction) takes a while
// to kill; the exports by mark are killed within their few milliseconds.
func TestKilledExportLosesNothing(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("random seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "first")
	store := filepath.Join(repo, ".git", "queen", records.MessagesFile)
	var b strings.Builder
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20000 {
		t := at.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		fmt.Fprintf(&b, `{"id":"qm-%026d","created_at":%q,"updated_at":%q,"from":"ann","to":"bob","subject":"s %d","body":"a body of some length, as messages have","thread_id":"qm-%026d","importance":"normal","read":false}`+"\n", i, t, t, i, i)
	}
	f, err := os.OpenFile(store, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	f.Close()

	iterations := 20
	if testing.Short() {
		iterations = 6
	}
	killed := 0
	for i := range iterations {
		for j := range rng.IntN(3) + 1 {
			mustQueen(t, repo, "ann", "msg", "send", "--new", "--to", "bob", "--subject", fmt.Sprintf("round %d, %d", i, j))
		}
		if rng.IntN(2) == 0 { // a new version of an old message
			mustQueen(t, repo, "bob", "msg", "read", fmt.Sprintf("qm-%026d", rng.IntN(20000)))
		}
		wait := time.Duration(rng.IntN(8)) * time.Millisecond // an export by mark takes a few
		if rng.IntN(4) == 0 {
			mustQueen(t, repo, "ann", "compact") // the next export compares every record
			wait = time.Duration(rng.IntN(150)) * time.Millisecond
		}
		victim := startToKill(t, repo, "ann", true, "export")
		time.Sleep(wait)
		if wasKilled, code, out := victim.kill(); wasKilled {
			killed++
		} else if code != 0 {
			t.Fatalf("round %d: export exited %d before the kill:\n%s", i, code, out)
		}
		mustQueen(t, repo, "ann", "export")
	}
	t.Logf("%d of %d exports killed", killed, iterations)
	fresh := t.TempDir()
	mustQueen(t, repo, "ann", "export", fresh)
	got, want := currentVersions(t, filepath.Join(repo, ".beads", records.MessagesFile)), currentVersions(t, filepath.Join(fresh, records.MessagesFile))
	if len(got) != len(want) {
		t.Fatalf("the export that was killed holds %d ids, a fresh one %d", len(got), len(want))
	}
	for id, raw := range want {
		if got[id] != raw {
			t.Fatalf("%s: the export that was killed has %s, a fresh one %s", id, got[id], raw)
		}
	}
	// An export that was killed after its appends leaves them for the
	// next one to find, not to write again.
	data, err := os.ReadFile(filepath.Join(repo, ".beads", records.MessagesFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && seen[line] {
			t.Fatalf("a line was written twice: %s", line)
		}
		seen[line] = true
	}
	if out := mustQueen(t, repo, "ann", "export"); !strings.Contains(out, records.MessagesFile+": up to date") {
		t.Fatalf("an export after the last one wrote something:\n%s", out)
	}
}

// currentVersions reads the current version of each id of the log at
// path, and fails on a line that is not a record.
func currentVersions(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := jsonl.Materialize(data, path, "", records.Versions)
	if len(s.Problems) > 0 {
		t.Fatalf("%s: %v", path, s.Problems[0])
	}
	out := map[string]string{}
	for _, r := range s.Records {
		out[r.ID] = string(r.Raw)
	}
	return out
}
