package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// commitFile writes a file and commits it, returning the new commit.
func commitFile(t *testing.T, dir, name, content, msg string) string {
	t.Helper()
	testgit.Write(t, dir, name, content)
	testgit.Run(t, dir, "add", name)
	testgit.Run(t, dir, "commit", "-q", "-m", msg)
	return testgit.Run(t, dir, "rev-parse", "HEAD")
}

// storeViews is what the store commands report, by command: the state a
// droid sees, whichever worktree it asks from.
func storeViews(t *testing.T, dir string) map[string]string {
	t.Helper()
	return map[string]string{
		"reservations --all --json":  mustQueen(t, dir, "ann", "reservations", "--all", "--json"),
		"msg inbox --json (ann)":     mustQueen(t, dir, "ann", "msg", "inbox", "--json"),
		"msg inbox --json (bob)":     mustQueen(t, dir, "bob", "msg", "inbox", "--json"),
		"assignments --all --json":   mustQueen(t, dir, "ann", "assignments", "--all", "--json"),
		"reservations --json (live)": mustQueen(t, dir, "bob", "reservations", "--json"),
	}
}

// compareViews reports every view that differs from the one before.
func compareViews(t *testing.T, step, where string, want, got map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}) {
		if got[k] != want[k] {
			t.Errorf("after %s, %s reports a different %s:\nbefore:\n%s\nafter:\n%s", step, where, k, want[k], got[k])
		}
	}
}

// Stash, stash pop, reset, checkout, merge, rebase, clean and worktree
// remove in ann's worktree never change what any store command reports, in
// either worktree; and ann's exclusive reservation keeps binding bob all
// along.
func TestGitPorcelainNeverMovesTheStore(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	wt := filepath.Join(filepath.Dir(repo), "wt")
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	testgit.Run(t, repo, "add", "-A")
	testgit.Run(t, repo, "commit", "-q", "-m", "git queen init")
	base := commitFile(t, repo, "a.txt", "one\n", "a one")
	commitFile(t, repo, "a.txt", "two\n", "a two")
	commitFile(t, repo, "b.txt", "b\n", "b")
	testgit.Run(t, repo, "branch", "side", base)
	testgit.Run(t, repo, "worktree", "add", "-q", wt, "-b", "wt")
	t.Cleanup(func() { os.RemoveAll(wt) })
	// The side branch touches .beads/ and code, as a droid's branch would.
	testgit.Run(t, repo, "checkout", "-q", "side")
	testgit.Write(t, repo, ".beads/issues.jsonl", `{"id":"qb-1","title":"one","status":"open","priority":1,"issue_type":"task"}`+"\n")
	commitFile(t, repo, "side.txt", "side\n", "side")
	testgit.Run(t, repo, "add", ".beads/issues.jsonl")
	testgit.Run(t, repo, "commit", "-q", "-m", "issues")
	testgit.Run(t, repo, "checkout", "-q", "main")

	// The state: reservations exclusive and shared, active and released;
	// messages both ways, one read; assignments.
	mustQueen(t, repo, "ann", "reserve", "src/api/**", "--exclusive")
	mustQueen(t, repo, "ann", "reserve", "docs/**", "--shared")
	mustQueen(t, repo, "ann", "reserve", "tmp/**", "-x")
	mustQueen(t, repo, "ann", "release", "tmp/**")
	mustQueen(t, wt, "bob", "reserve", "lib/**", "-x")
	mustQueen(t, wt, "bob", "reserve", "docs/**", "--shared")
	id, err := sentID(mustQueen(t, repo, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "API moved", "--json"))
	if err != nil {
		t.Fatal(err)
	}
	mustQueen(t, repo, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "second", "--body", "more")
	mustQueen(t, wt, "bob", "msg", "read", id)
	mustQueen(t, wt, "bob", "msg", "reply", id, "--body", "thanks")
	mustQueen(t, repo, "ann", "assign", "qb-7", "bob")
	mustQueen(t, wt, "bob", "claim", "qb-8")

	want := storeViews(t, repo)
	compareViews(t, "setting up", "bob's worktree", want, storeViews(t, wt))
	for k, v := range want {
		if strings.Count(v, `"id"`) == 0 {
			t.Fatalf("%s reports nothing, so the test would prove nothing:\n%s", k, v)
		}
	}

	steps := []struct {
		name string
		prep [][]string // git commands that set the step up
		git  [][]string // the porcelain under test, in ann's worktree
	}{
		{name: "git stash (a dirty tracked file)", prep: nil, git: [][]string{{"stash"}}},
		{name: "git stash pop", git: [][]string{{"stash", "pop"}}},
		{name: "git checkout -- .", git: [][]string{{"checkout", "--", "."}}},
		{name: "git reset --hard HEAD~1", git: [][]string{{"reset", "--hard", "HEAD~1"}}},
		{name: "git checkout -b other", git: [][]string{{"checkout", "-b", "other"}}},
		{name: "git checkout main", git: [][]string{{"checkout", "main"}}},
		{name: "git merge side", git: [][]string{{"merge", "--no-edit", "side"}}},
		{
			name: "git rebase main",
			prep: [][]string{{"checkout", "-q", "-b", "topic", "side"}},
			git:  [][]string{{"rebase", "main"}, {"checkout", "main"}},
		},
		{name: "git clean -fdx", git: [][]string{{"clean", "-fdx"}}},
		{name: "git gc --prune=now", git: [][]string{{"gc", "-q", "--prune=now"}}},
		{name: "git worktree remove", git: [][]string{{"worktree", "remove", wt}}},
		{name: "git worktree add (again)", git: [][]string{{"worktree", "add", wt, "wt"}}},
	}
	for i, step := range steps {
		if i == 0 {
			testgit.Write(t, repo, "a.txt", "dirty\n")
			testgit.Write(t, repo, "scratch.txt", "untracked\n")
		}
		if step.name == "git rebase main" {
			for _, args := range step.prep {
				testgit.Run(t, repo, args...)
			}
			commitFile(t, repo, "topic.txt", "topic\n", "topic")
		}
		for _, args := range step.git {
			if out, err := gitProc(repo, args...); err != nil {
				t.Fatalf("%s: git %s: %v\n%s", step.name, strings.Join(args, " "), err, out)
			}
		}
		compareViews(t, step.name, "ann's worktree", want, storeViews(t, repo))
		if _, err := os.Stat(wt); err == nil {
			compareViews(t, step.name, "bob's worktree", want, storeViews(t, wt))
			if r := gitQueen(t, wt, "bob", "check", "src/api/handler.go"); r.code != 5 {
				t.Errorf("after %s, bob's worktree finds src/api/handler.go free of ann's exclusive reservation: exit %d\n%s%s",
					step.name, r.code, r.stdout, r.stderr)
			}
			if r := gitQueen(t, wt, "bob", "reserve", "src/api/**", "-x"); r.code != 5 {
				t.Errorf("after %s, bob could reserve src/api/** over ann: exit %d\n%s%s", step.name, r.code, r.stdout, r.stderr)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	}
}

// While git merges and resets ann's worktree over and over (merges that
// change files in .beads/ and elsewhere), droids send forty messages and
// reserve distinct patterns in it: every write that exited 0 is kept.
func TestWritesRacingAMergeAreKept(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	testgit.Run(t, repo, "add", "-A")
	testgit.Run(t, repo, "commit", "-q", "-m", "git queen init")
	testgit.Write(t, repo, ".beads/issues.jsonl", issueLine(0, "zero")+"\n")
	testgit.Run(t, repo, "add", ".beads/issues.jsonl")
	fork := commitFile(t, repo, "src/main.go", "package main\n", "base")
	const branches = 4
	for k := range branches {
		b := fmt.Sprintf("m%d", k)
		testgit.Run(t, repo, "checkout", "-q", "-b", b, fork)
		testgit.Write(t, repo, ".beads/issues.jsonl",
			issueLine(0, "zero")+"\n"+issueLine(k+1, "from "+b)+"\n")
		testgit.Write(t, repo, fmt.Sprintf(".beads/notes-%d.md", k), "notes\n")
		testgit.Write(t, repo, fmt.Sprintf("src/f%d.go", k), "package main\n")
		testgit.Run(t, repo, "add", "-A")
		testgit.Run(t, repo, "commit", "-q", "-m", b)
	}
	testgit.Run(t, repo, "checkout", "-q", "main")
	// main changes the issues too, so every merge runs the merge driver.
	testgit.Write(t, repo, ".beads/issues.jsonl", issueLine(0, "zero")+"\n"+issueLine(99, "on main")+"\n")
	testgit.Run(t, repo, "add", ".beads/issues.jsonl")
	head := commitFile(t, repo, "README", "moved on\n", "main moves on")

	// A merge of a branch joins the issues of both sides (the driver ran).
	testgit.Run(t, repo, "merge", "-q", "--no-edit", "m0")
	if got, _ := os.ReadFile(filepath.Join(repo, ".beads", "issues.jsonl")); !strings.Contains(string(got), "qb-1") ||
		!strings.Contains(string(got), "qb-99") {
		t.Fatalf("the merge did not join the issues:\n%s", got)
	}
	testgit.Run(t, repo, "reset", "-q", "--hard", head)

	stop := make(chan struct{})
	firstMerge := make(chan struct{})
	var merges int
	var mergeErrs []string
	var loop sync.WaitGroup
	loop.Go(func() {
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			b := fmt.Sprintf("m%d", n%branches)
			if out, err := gitProc(repo, "merge", "-q", "--no-edit", b); err != nil {
				mergeErrs = append(mergeErrs, fmt.Sprintf("git merge %s: %v\n%s", b, err, out))
			} else {
				merges++
				if merges == 1 {
					close(firstMerge)
				}
			}
			if out, err := gitProc(repo, "reset", "-q", "--hard", head); err != nil {
				mergeErrs = append(mergeErrs, fmt.Sprintf("git reset --hard: %v\n%s", err, out))
			}
		}
	})

	type write struct {
		droid, to, subject, pattern string
		args                        []string
		res                         run
		err                         error
	}
	droids := []string{"ann", "bob", "cy", "dee"}
	var writes []*write
	for i := range 40 {
		from, to := droids[i%4], droids[(i+1)%4]
		subject := fmt.Sprintf("during the merges #%d", i)
		writes = append(writes, &write{droid: from, to: to, subject: subject,
			args: []string{"msg", "send", "--new", "--to", to, "--subject", subject, "--json"}})
	}
	for i := range 8 {
		pattern := fmt.Sprintf("zone/%d/**", i)
		writes = append(writes, &write{droid: droids[i%4], pattern: pattern,
			args: []string{"reserve", pattern, "--exclusive", "--json"}})
	}
	// Eight writers at a time, pausing between writes, so the writes
	// spread over many merges.
	select {
	case <-firstMerge:
	case <-time.After(time.Minute):
		close(stop)
		loop.Wait()
		t.Fatalf("no merge succeeded within a minute: %v", mergeErrs)
	}
	began := time.Now()
	var writers sync.WaitGroup
	for w := range 8 {
		writers.Go(func() {
			for i := w; i < len(writes); i += 8 {
				time.Sleep(time.Duration(50+rand.IntN(200)) * time.Millisecond)
				wr := writes[i]
				wr.res, wr.err = queenProc(repo, wr.droid, wr.args...)
			}
		})
	}
	writers.Wait()
	took := time.Since(began)
	close(stop)
	loop.Wait()
	for _, e := range mergeErrs {
		t.Errorf("the merge loop: %s", e)
	}
	t.Logf("%d writes in %v while git made %d merges (and as many resets)", len(writes), took.Round(time.Millisecond), merges)
	if merges == 0 {
		t.Errorf("no merge ran while the writes did: the test proved nothing")
	}

	inboxes := map[string]map[string]int{}
	for _, d := range droids {
		inboxes[d] = map[string]int{}
		for _, m := range inbox(t, repo, d) {
			inboxes[d][m.ID]++
		}
	}
	active := map[string]bool{}
	for _, r := range allReservations(t, repo, "ann") {
		if r.Active {
			active[r.ID] = true
		}
	}
	acked, lost := 0, 0
	for _, wr := range writes {
		switch {
		case wr.err != nil:
			t.Errorf("%v", wr.err)
			continue
		case wr.res.code != 0:
			t.Errorf("a write racing the merges failed (as %s): %s", wr.droid, describeRun(wr.args, wr.res))
			continue
		}
		acked++
		if wr.pattern == "" {
			id, err := sentID(wr.res.stdout)
			if err != nil {
				t.Error(err)
				continue
			}
			if n := inboxes[wr.to][id]; n != 1 {
				lost++
				t.Errorf("the acknowledged message %s (%q) is in %s's inbox %d times, want once", id, wr.subject, wr.to, n)
			}
			continue
		}
		ids, err := grantedIDs(wr.res.stdout)
		if err != nil || len(ids) != 1 {
			t.Errorf("reserve %s granted %v (%v)", wr.pattern, ids, err)
			continue
		}
		if !active[ids[0]] {
			lost++
			t.Errorf("the acknowledged reservation %s of %s by %s is not active", ids[0], wr.pattern, wr.droid)
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged writes lost", lost, acked)
	}
	if got := testgit.Run(t, repo, "show", "m0:.beads/issues.jsonl"); !strings.Contains(got, "qb-1") {
		t.Errorf("branch m0's issues: %s", got)
	}
	if st := testgit.Run(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("the worktree is not clean after the merge loop:\n%s", st)
	}
}

// worktreeState is what git reports of a worktree and its index, and what
// its files hold.
type worktreeState struct {
	status, staged, unstaged, head string
	files                          string // path, mode and content hash of every file outside .git
	index                          []byte
}

func readWorktreeState(t *testing.T, dir string) worktreeState {
	t.Helper()
	var s worktreeState
	s.status = testgit.Run(t, dir, "status", "--porcelain=v1", "--untracked-files=all", "--ignored")
	s.staged = testgit.Run(t, dir, "diff", "--cached", "--stat")
	s.unstaged = testgit.Run(t, dir, "diff")
	s.head = testgit.Run(t, dir, "rev-parse", "--symbolic-full-name", "HEAD") + " " + testgit.Run(t, dir, "rev-parse", "HEAD")
	s.index = readIndex(t, dir)
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := ""
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(data)
			sum = hex.EncodeToString(h[:8])
		}
		fmt.Fprintf(&b, "%s %v %s\n", rel, info.Mode(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.files = b.String()
	return s
}

func readIndex(t *testing.T, dir string) []byte {
	t.Helper()
	path := testgit.Run(t, dir, "rev-parse", "--path-format=absolute", "--git-path", "index")
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return data
}

// No store command changes the worktree, the index or HEAD: git status,
// the staged and unstaged diffs, every file's bytes and the index file's
// bytes are the same before and after each, in a clean repository and in
// one with staged, modified, untracked and ignored files.
func TestStoreCommandsLeaveTheWorktreeAlone(t *testing.T) {
	t.Parallel()
	for _, dirty := range []bool{false, true} {
		name := "clean"
		if dirty {
			name = "dirty"
		}
		t.Run(name, func(t *testing.T) {
			r := testgit.FileRemote(t)
			seedRemote(t, r)
			dir := testgit.Clone(t, r)
			mustQueen(t, dir, "ann", "init", "--droid", "ann", "--remote", "origin")
			testgit.Write(t, dir, "src/a.go", "package a\n")
			testgit.Write(t, dir, ".gitignore", "*.log\n")
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "commit", "-q", "-m", "setup")
			if dirty {
				testgit.Write(t, dir, "src/a.go", "package a // modified\n")
				testgit.Write(t, dir, "staged.txt", "staged\n")
				testgit.Run(t, dir, "add", "staged.txt")
				testgit.Write(t, dir, "staged.txt", "staged, then modified\n")
				testgit.Write(t, dir, "untracked.txt", "untracked\n")
				testgit.Write(t, dir, "newdir/deep/file.txt", "untracked\n")
				testgit.Write(t, dir, "build.log", "ignored\n")
				testgit.Write(t, dir, ".beads/scratch.txt", "untracked in .beads\n")
			}
			st := readWorktreeState(t, dir)
			if dirty && (!strings.Contains(st.status, "??") || !strings.Contains(st.status, "!!") || st.staged == "") {
				t.Fatalf("the dirty repository is not dirty enough:\n%s", st.status)
			}

			var msgID, replyID string
			steps := []struct {
				droid string
				args  func() []string
				after func(out string)
			}{
				{"ann", fixed("reserve", "src/**", "-x"), nil},
				{"ann", fixed("reserve", "docs/**"), nil},
				{"ann", fixed("reserve", "tmp/**", "-x", "--offline"), nil},
				{"bob", fixed("check", "src/a.go"), nil},
				{"ann", fixed("check", "src/a.go", "--json"), nil},
				{"ann", fixed("reservations"), nil},
				{"ann", fixed("reservations", "--all", "--json"), nil},
				{"ann", fixed("renew", "--all", "--ttl", "3h"), nil},
				{"ann", fixed("release", "docs/**"), nil},
				{"ann", fixed("msg", "send", "--new", "--to", "bob", "--subject", "hello", "--body", "b", "--json"), func(out string) {
					msgID, _ = sentID(out)
				}},
				{"bob", fixed("msg", "inbox"), nil},
				{"bob", fixed("msg", "inbox", "--json"), nil},
				{"bob", func() []string { return []string{"msg", "read", msgID} }, nil},
				{"bob", func() []string { return []string{"msg", "thread", msgID} }, nil},
				{"bob", func() []string { return []string{"msg", "reply", msgID, "--body", "ok", "--json"} }, func(out string) {
					replyID, _ = sentID(out)
				}},
				{"ann", func() []string { return []string{"msg", "delete", replyID} }, nil},
				{"ann", fixed("assign", "qb-1", "bob"), nil},
				{"bob", fixed("claim", "qb-2"), nil},
				{"bob", fixed("unassign", "qb-2", "--done"), nil},
				{"ann", fixed("assignments"), nil},
				{"ann", fixed("assignments", "--all", "--json"), nil},
				{"ann", fixed("sync"), nil},
				{"ann", fixed("compact"), nil},
				{"ann", fixed("archive", "--before", "2100-01-01"), nil},
				{"ann", fixed("sync", "--json"), nil},
				{"ann", fixed("release", "--all"), nil},
			}
			for _, s := range steps {
				args := s.args()
				res := gitQueen(t, dir, s.droid, args...)
				index := readIndex(t, dir) // before git status can refresh it
				okCode := res.code == 0 || args[0] == "check" && res.code == 5
				if !okCode {
					t.Errorf("%s", describeRun(args, res))
				}
				if s.after != nil {
					s.after(res.stdout)
				}
				after := readWorktreeState(t, dir)
				what := "git queen " + strings.Join(args, " ")
				if string(index) != string(st.index) {
					t.Errorf("%s changed the index file (%d bytes before, %d after)", what, len(st.index), len(index))
				}
				for _, c := range []struct{ name, before, after string }{
					{"git status --porcelain", st.status, after.status},
					{"git diff --cached --stat", st.staged, after.staged},
					{"git diff", st.unstaged, after.unstaged},
					{"HEAD", st.head, after.head},
					{"the worktree's files", st.files, after.files},
				} {
					if c.before != c.after {
						t.Errorf("%s changed %s:\nbefore:\n%s\nafter:\n%s", what, c.name, c.before, c.after)
					}
				}
				st = after
			}
			if msgID == "" || replyID == "" {
				t.Errorf("the message commands did not run on a message (id %q, reply %q)", msgID, replyID)
			}
		})
	}
}

// issueLine is a valid beads issue.
func issueLine(n int, title string) string {
	return fmt.Sprintf(`{"id":"qb-%d","title":%q,"status":"open","priority":2,"issue_type":"task"}`, n, title)
}

func fixed(args ...string) func() []string { return func() []string { return args } }
