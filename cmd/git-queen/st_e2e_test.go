package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

const stream = "plans/sprint.jsonl"

// stWrite runs one `git queen st` write with --json and returns its result.
func stWrite(t *testing.T, dir, droid string, args ...string) stResult {
	t.Helper()
	out := mustQueen(t, dir, droid, append([]string{"st", args[0], "--json"}, args[1:]...)...)
	var res stResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("st %v --json: %v\n%s", args, err, out)
	}
	return res
}

type stResult struct {
	Op         string `json:"op"`
	Seq        int64  `json:"seq"`
	Checkpoint bool   `json:"checkpoint"`
	ID         string `json:"id"`
	Items      int    `json:"items"`
}

// shownItems is what `git queen st show --json` replays, reduced to the
// seed's six fields.
func shownItems(t *testing.T, dir string) []refItem {
	t.Helper()
	var items []refItem
	if err := json.Unmarshal([]byte(mustQueen(t, dir, "", "st", "show", stream, "--json")), &items); err != nil {
		t.Fatal(err)
	}
	return items
}

// checkStream validates the stream with git queen and replays it with the
// seed's reference replay: the replay contract holds and git queen's
// replay is the reference's.
func checkStream(t *testing.T, dir, when string) []refItem {
	t.Helper()
	if r := gitQueen(t, dir, "", "validate", stream); r.code != 0 {
		t.Fatalf("%s: validate: exit %d\n%s%s", when, r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, stream))
	if err != nil {
		t.Fatal(err)
	}
	full, fast, err := referenceReplay(data)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	if !reflect.DeepEqual(full, fast) {
		t.Fatalf("%s: replay contract broken:\nfull %+v\ncheckpoint %+v", when, full, fast)
	}
	if shown := shownItems(t, dir); !reflect.DeepEqual(shown, full) {
		t.Fatalf("%s: git queen st show differs from the reference replay:\n%+v\n%+v", when, shown, full)
	}
	return full
}

// A stream written only through `git queen st`, changed on two branches
// and merged by a real `git merge` through the driver `git queen init` set
// up (with the .gitattributes line it wrote from queen.toml), validates and
// replays to the reference replay, with every write of both branches in.
func TestStWrittenByCommandsMergesAndReplays(t *testing.T) {
	repo := newRepo(t)
	testgit.Write(t, repo, ".beads/queen.toml", "[[format]]\npath = \"plans/*.jsonl\"\nformat = \"st\"\n")
	os.MkdirAll(filepath.Join(repo, "plans"), 0o755)
	mustQueen(t, repo, "", "init", "--droid", "alice", "--no-hooks")
	if out := testgit.Run(t, repo, "check-attr", "merge", "--", stream); !strings.HasSuffix(out, "merge: queen") {
		t.Fatalf("init did not route the stream to the driver: %s", out)
	}
	if r := stWrite(t, repo, "alice", "init", stream); r.Seq != 0 {
		t.Fatalf("init at seq %d", r.Seq)
	}
	a := stWrite(t, repo, "alice", "add", stream, "Reproduce the bug", "--id", "st-001").ID
	b := stWrite(t, repo, "alice", "add", stream, "Fix it", "--dep", a).ID
	c := stWrite(t, repo, "alice", "add", stream, "Review", "--dep", b, "--dep", a+":relates-to").ID
	base := checkStream(t, repo, "base")
	if len(base) != 3 || base[2].Deps[1] != (refEdge{ID: a, Type: "relates-to"}) {
		t.Fatalf("base %+v", base)
	}
	testgit.Run(t, repo, "add", "-A")
	testgit.Run(t, repo, "commit", "-q", "-m", "base")
	testgit.Run(t, repo, "checkout", "-q", "-b", "x")
	wtY := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-y")
	testgit.Run(t, repo, "worktree", "add", "-q", "-b", "y", wtY, "main")
	t.Cleanup(func() { os.RemoveAll(wtY) })

	// Branch x: alice works on the first item. Branch y: bob, with a
	// checkpoint every three events, so his side brings checkpoints.
	stWrite(t, repo, "alice", "status", stream, a, "in_progress")
	stWrite(t, repo, "alice", "comment", stream, a, "reproduced on linux")
	stWrite(t, repo, "alice", "notes", stream, a, "only with -race")
	d := stWrite(t, repo, "alice", "add", stream, "Add a regression test", "--dep", a).ID
	stWrite(t, repo, "alice", "status", stream, a, "completed")
	var checkpoints int
	for _, args := range [][]string{
		{"comment", stream, b, "I can take this"},
		{"status", stream, b, "in_progress"},
		{"add", stream, "Update the changelog", "--id", "st-log"},
		{"deps", stream, c, b, "st-log"},
		{"comment", "--", stream, c, "-- waiting on the fix"},
	} {
		if stWrite(t, wtY, "bob", append([]string{args[0], "--checkpoint-interval", "3"}, args[1:]...)...).Checkpoint {
			checkpoints++
		}
	}
	if checkpoints == 0 {
		t.Fatal("no checkpoint was written on branch y")
	}
	checkStream(t, repo, "branch x")
	checkStream(t, wtY, "branch y")
	testgit.Run(t, repo, "commit", "-q", "-am", "alice's work")
	testgit.Run(t, wtY, "commit", "-q", "-am", "bob's work")

	merge := exec.Command("git", "merge", "--no-edit", "y")
	merge.Dir = repo
	if out, err := merge.CombinedOutput(); err != nil {
		t.Fatalf("git merge: %v\n%s", err, out)
	}
	merged := checkStream(t, repo, "merged")
	byID := map[string]refItem{}
	for _, it := range merged {
		byID[it.ID] = it
	}
	texts := func(it refItem) []string {
		var out []string
		for _, c := range it.Comments {
			out = append(out, c.Author+": "+c.Text)
		}
		return out
	}
	if len(merged) != 5 || byID[a].Status != "completed" || byID[a].Notes != "only with -race" ||
		!slices.Equal(texts(byID[a]), []string{"alice: reproduced on linux"}) ||
		byID[b].Status != "in_progress" || !slices.Equal(texts(byID[b]), []string{"bob: I can take this"}) ||
		!reflect.DeepEqual(byID[c].Deps, []refEdge{{b, "blocks"}, {"st-log", "blocks"}}) ||
		!slices.Equal(texts(byID[c]), []string{"bob: -- waiting on the fix"}) || byID[d].Step != "Add a regression test" ||
		byID["st-log"].Status != "pending" {
		t.Fatalf("the merged plan lost a write:\n%+v", merged)
	}
	// Writing goes on after the merge, at the merged stream's watermark + 1.
	data, _ := os.ReadFile(filepath.Join(repo, stream))
	watermark := int64(-1)
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r struct{ Seq int64 }
		json.Unmarshal(l, &r)
		watermark = max(watermark, r.Seq)
	}
	if r := stWrite(t, repo, "alice", "status", stream, b, "completed"); r.Seq != watermark+1 {
		t.Fatalf("after the merge: seq %d, want %d", r.Seq, watermark+1)
	}
	checkStream(t, repo, "after the merge")
}

// Writers that run at once, as separate processes, each take the stream's
// lock: every event lands at its own seq, none is lost, and the
// checkpoints they write keep the replay contract.
func TestStConcurrentWritersTakeDistinctSeqs(t *testing.T) {
	repo := newRepo(t)
	os.MkdirAll(filepath.Join(repo, "plans"), 0o755)
	mustQueen(t, repo, "", "st", "init", stream)
	mustQueen(t, repo, "", "st", "add", stream, "Shared step", "--id", "s")
	const writers, each = 6, 5
	var wg sync.WaitGroup
	results := make([][]run, writers)
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				r, err := queenProc(repo, fmt.Sprintf("droid-%d", w), "st", "comment", stream, "s",
					fmt.Sprintf("from %d, %d", w, i), "--checkpoint-interval", "4", "--json")
				if err != nil {
					errs <- err
					return
				}
				results[w] = append(results[w], r)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seqs := map[int64]string{}
	for w, rs := range results {
		for _, r := range rs {
			var res stResult
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil {
				t.Fatalf("writer %d: exit %d\n%s%s", w, r.code, r.stdout, r.stderr)
			}
			if other, taken := seqs[res.Seq]; taken {
				t.Fatalf("seq %d written twice (writer %d and %s)", res.Seq, w, other)
			}
			seqs[res.Seq] = fmt.Sprint(w)
		}
	}
	for s := int64(2); s < 2+writers*each; s++ {
		if _, ok := seqs[s]; !ok {
			t.Fatalf("no write reported seq %d: %v", s, seqs)
		}
	}
	items := checkStream(t, repo, "after the race")
	if len(items) != 1 || len(items[0].Comments) != writers*each {
		t.Fatalf("%d comments, want %d", len(items[0].Comments), writers*each)
	}
	// Each writer's comments are in the order it wrote them.
	for w := range writers {
		var mine []string
		for _, c := range items[0].Comments {
			if c.Author == fmt.Sprintf("droid-%d", w) {
				mine = append(mine, c.Text)
			}
		}
		for i, text := range mine {
			if text != fmt.Sprintf("from %d, %d", w, i) {
				t.Fatalf("writer %d's comments out of order: %v", w, mine)
			}
		}
	}
}
