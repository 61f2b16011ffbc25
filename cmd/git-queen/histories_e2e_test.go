package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// The random-history property test: real git, real worktrees, the real
// binary as CLI, as merge driver and as hooks, in the seed's layout (the
// stores in .beads, BEADS_DIR=.beads, tracked on every branch, with
// pre-commit and pre-merge-commit installed: every commit and merge the
// history makes must pass them). Each history has 3 to 5 branches, each
// in its own worktree and worked by its own droid, and takes random steps:
// CLI operations on the committed stores (msg send, read, delete; reserve,
// release), st events appended as st does, edits of a VerMAS work order
// projection, and merges, criss-cross merges, rebases and cherry-picks
// between the branches. After every step the branches it changed are
// checked (see checkBranch); at the end every branch is merged into one
// and every fact ever written must be there, once, and current.
//
//	go test ./cmd/git-queen -run TestRandomHistories                      # the default size
//	QUEEN_HISTORIES=200 go test ./cmd/git-queen -run TestRandomHistories  # the 200
//	go test ./cmd/git-queen -run TestRandomHistories -histories 2000      # a long run
//	go test ./cmd/git-queen -run TestRandomHistories -history.seed 17 -v  # one history, step by step
var (
	historyCount = flag.Int("histories", 0, "how many random histories TestRandomHistories runs (0: QUEEN_HISTORIES, else 12)")
	historySeed  = flag.Uint64("history.seed", 0, "run only the random history with this seed (a failure prints it)")
	historySteps = flag.Int("history.steps", 24, "steps in each random history")
)

func TestRandomHistories(t *testing.T) {
	testgit.Isolate(t)
	// Every git process of the histories (and the hooks they run) works
	// on the seed's layout.
	t.Setenv("BEADS_DIR", ".beads")
	count := *historyCount
	if n, err := strconv.Atoi(os.Getenv("QUEEN_HISTORIES")); count == 0 && err == nil && n > 0 {
		count = n
	}
	if count == 0 {
		count = 12
	}
	seeds := make([]uint64, 0, count)
	if *historySeed != 0 {
		seeds = append(seeds, *historySeed)
	} else {
		for s := range uint64(count) {
			seeds = append(seeds, s+1)
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			h := newHistory(t, seed)
			defer func() {
				if t.Failed() {
					t.Logf("history %d, steps:\n  %s\nreproduce: go test ./cmd/git-queen -run TestRandomHistories -history.seed %d -v",
						seed, strings.Join(h.steps, "\n  "), seed)
				}
			}()
			for range *historySteps {
				if !h.step() {
					return
				}
			}
			h.mergeAll()
		})
	}
}

// The files every branch carries, and how each is checked.
const (
	messagesFile     = ".beads/queen_messages.jsonl"
	reservationsFile = ".beads/queen_reservations.jsonl"
	planFile         = "plan.jsonl"
	workOrdersFile   = ".work/work_orders.jsonl"
)

var historyFiles = []string{messagesFile, reservationsFile, planFile, workOrdersFile}

// randomHistory is one history under way.
type randomHistory struct {
	t       *testing.T
	rng     *rand.Rand
	seed    uint64
	repo    string            // the main worktree (branch b0)
	dirs    map[string]string // each branch's worktree
	names   []string          // the branches, b0...
	scratch string            // a detached worktree for second merges
	clock   time.Time         // st and work-order time, one second a step
	fact    int               // the last fact number handed out
	steps   []string          // what happened, for the failure message
	// written holds every line the CLI appended to a QueenBee store, by
	// record id, and facts every st fact token written: all must survive.
	written map[string][]string
	facts   []string
	// woNewest is the newest updated_at written for each work order.
	woNewest map[string]string
}

func newHistory(t *testing.T, seed uint64) *randomHistory {
	h := &randomHistory{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 14)),
		dirs: map[string]string{}, written: map[string][]string{}, woNewest: map[string]string{},
		clock: time.Date(2026, 2, 9, 20, 0, 0, 0, time.UTC)}
	h.repo = testgit.Init(t)
	h.git(h.repo, "queen", "hooks", "install")
	h.git(h.repo, "config", "merge.queen.name", "git-queen JSONL merge")
	h.git(h.repo, "config", "merge.queen.driver", "git-queen merge-driver %O %A %B %L %P")
	testgit.Write(t, h.repo, ".gitattributes", ".beads/*.jsonl merge=queen\n.work/*.jsonl merge=queen\nplan.jsonl merge=queen\n")
	testgit.Write(t, h.repo, ".beads/.gitignore", "*.lock\n")
	// Every file exists from the base on, as after `git queen init`: a
	// cherry-pick of a commit that changed a file the target lacks is a
	// modify/delete conflict, which no merge driver sees.
	for _, f := range []string{planFile, messagesFile, reservationsFile} {
		testgit.Write(t, h.repo, f, "")
	}
	h.dirs["b0"] = h.repo
	h.names = []string{"b0"}
	h.stAppend(h.repo, `"op":"init"`)
	h.stAppend(h.repo, `"op":"upsert","item":{"id":"st-1","step":"Merge","status":"pending","deps":[]}`)
	for i := 1; i <= 3; i++ {
		h.editWorkOrder(h.repo, fmt.Sprintf("wo-%d", i))
	}
	h.commit(h.repo, "base")
	n := 3 + h.rng.IntN(3)
	for i := 1; i < n; i++ {
		name := fmt.Sprintf("b%d", i)
		dir := filepath.Join(filepath.Dir(h.repo), filepath.Base(h.repo)+"-"+name)
		h.git(h.repo, "worktree", "add", "-q", "-b", name, dir, "main")
		h.dirs[name] = dir
		h.names = append(h.names, name)
	}
	h.git(h.repo, "branch", "-q", "-m", "main", "b0")
	h.scratch = filepath.Join(filepath.Dir(h.repo), filepath.Base(h.repo)+"-scratch")
	h.git(h.repo, "worktree", "add", "-q", "--detach", h.scratch, "b0")
	return h
}

// droid is the droid who works on a branch.
func droidOf(branch string) string { return "d" + strings.TrimPrefix(branch, "b") }

func (h *randomHistory) pick() string { return h.names[h.rng.IntN(len(h.names))] }

// pickTwo returns two different branches.
func (h *randomHistory) pickTwo() (string, string) {
	i := h.rng.IntN(len(h.names))
	j := (i + 1 + h.rng.IntN(len(h.names)-1)) % len(h.names)
	return h.names[i], h.names[j]
}

// step takes one random step and checks what it changed; false once the
// test has failed.
func (h *randomHistory) step() bool {
	h.clock = h.clock.Add(time.Second)
	switch k := h.rng.IntN(22); {
	case k < 3:
		h.send(h.pick())
	case k < 7:
		h.readOrDelete(h.pick(), h.rng.IntN(2) == 0)
	case k < 9:
		h.reserveOrRelease(h.pick())
	case k < 11:
		b := h.pick()
		h.fact++
		token := fmt.Sprintf("f%d", h.fact)
		h.facts = append(h.facts, token)
		if h.rng.IntN(2) == 0 {
			h.stAppend(h.dirs[b], fmt.Sprintf(`"op":"add_comment","id":"st-1","comment":{"ts":%q,"author":%q,"text":%q}`,
				h.clock.Format(time.RFC3339), droidOf(b), token))
		} else {
			h.stAppend(h.dirs[b], fmt.Sprintf(`"op":"set_notes","id":"st-1","notes":%q`, token))
		}
		h.commit(h.dirs[b], "st "+token)
		h.logf("%s: st event %s", b, token)
	case k < 12:
		b := h.pick()
		h.editWorkOrder(h.dirs[b], fmt.Sprintf("wo-%d", 1+h.rng.IntN(3)))
		h.commit(h.dirs[b], "work order")
		h.logf("%s: work order edit", b)
	case k < 16:
		from, into := h.pickTwo()
		h.merge(from, into)
	case k < 17:
		a, b := h.pickTwo()
		h.crissCross(a, b)
	case k < 19:
		onto, b := h.pickTwo()
		h.rebase(b, onto)
	default:
		from, into := h.pickTwo()
		h.cherryPick(from, into)
	}
	return !h.t.Failed()
}

func (h *randomHistory) logf(format string, args ...any) {
	h.steps = append(h.steps, fmt.Sprintf(format, args...))
	if *historySeed != 0 {
		h.t.Logf(format, args...)
	}
}
