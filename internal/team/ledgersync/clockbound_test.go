package ledgersync

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// Every ledger commit names the clone that wrote it, and a pusher names
// any clone it likes: rounds of merges by fresh clones, each commit with
// 17 parents, added hundreds of clock readings to every sync that read
// them, and the state every command loads grew by half a megabyte a
// sync. The readings kept are bounded, and so are the writers named.
func TestClockReadingsOfFreshClonesAreBounded(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "bob", "x")
	a.sync(t)
	names := 0
	for round := range 4 {
		c.tick(time.Minute)
		tip, err := a.sy.ledger.Refs().Read(ledger.Ref)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := a.sy.ledger.TreeOf(tip)
		if err != nil {
			t.Fatal(err)
		}
		commit := func(parents []object.ID) object.ID {
			names++
			name := fmt.Sprintf("m%d", names)
			id, err := a.sy.ledger.CommitTree(tree, parents, ledger.Signature{Name: name, Email: "git-queen+" + name + "@x", When: c.t}, "queen: merge")
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		// A tree of merges 17 wide, two deep, over the honest tip.
		level := []object.ID{}
		for range 17 * 17 {
			level = append(level, commit([]object.ID{tip}))
		}
		for len(level) > 1 {
			var next []object.ID
			for i := 0; i < len(level); i += 17 {
				next = append(next, commit(level[i:min(i+17, len(level))]))
			}
			level = next
		}
		testgit.Run(t, a.dir, "push", "-q", "-f", "origin", level[0].String()+":"+ledger.Ref)
		b.sync(t)
		st, err := loadState(b.s.WS.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.ClockEdges) > maxClockEdges || len(st.Writers) > 2*maxClockEdges {
			t.Fatalf("round %d: the state keeps %d clock readings and %d writers; at most %d readings", round, len(st.ClockEdges), len(st.Writers), maxClockEdges)
		}
		if round == 0 && len(st.ClockEdges) < 500 {
			t.Fatalf("round 0 read %d clock readings; the test means to read hundreds", len(st.ClockEdges))
		}
	}
	info, err := os.Stat(filepath.Join(b.s.WS.Dir, stateFile))
	if err != nil || info.Size() > 256<<10 {
		t.Fatalf("the state after four rounds: %v bytes, %v", info.Size(), err)
	}
}

// Of the readings read at one time, those that bound another clone
// against this one are kept before those of two other clones: a team of
// 40 clones that merge each other's commits reads more pairs than
// maxClockEdges in a day, and the pairs kept were the first by name, so a
// clone named late lost its reading against this one.
func TestClockReadingsAgainstThisCloneAreKeptFirst(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	st := &state{CloneID: "me", Writers: map[string]string{}}
	for i := range 40 {
		x := fmt.Sprintf("c%02d", i)
		st.Writers[x] = "droid " + x
		st.ClockEdges = append(st.ClockEdges, clockEdge{From: x, To: "me", Bound: time.Second, At: now})
		for j := range 40 {
			if y := fmt.Sprintf("c%02d", j); y != x {
				st.ClockEdges = append(st.ClockEdges, clockEdge{From: x, To: y, Bound: time.Second, At: now})
			}
		}
	}
	slices.SortFunc(st.ClockEdges, func(a, b clockEdge) int { return strings.Compare(a.From+" "+a.To, b.From+" "+b.To) })
	st.keepNewestClocks()
	if len(st.ClockEdges) != maxClockEdges {
		t.Fatalf("%d readings kept, want %d", len(st.ClockEdges), maxClockEdges)
	}
	against := 0
	for _, e := range st.ClockEdges {
		if e.To == "me" {
			against++
		}
	}
	if against != 40 {
		t.Errorf("%d of the 40 clones' readings against this clone were kept", against)
	}
	if len(st.Writers) != 40 {
		t.Errorf("%d writers kept, want the 40 clones'", len(st.Writers))
	}
}

// Commits dated so that their readings contradict each other (a cycle
// that sums below zero, which anyone who can push can craft between two
// made-up clones) made the bounds give nothing: every clock warning went
// silent, bob's two hours ahead among them. The readings against this
// clone still bound each clone on their own (and the cycle is named: see
// TestAClockCycleIsNamedAndTheOtherBoundsKept).
func TestAClockCycleDoesNotSilenceTheWarnings(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	st := &state{CloneID: "me", Writers: map[string]string{"bob": "bob", "f1": "m", "f2": "m"}}
	st.ClockEdges = []clockEdge{
		{From: "bob", To: "me", Bound: -2 * time.Hour, At: now}, // bob's commit dated 2h after this clone fetched it
		{From: "f1", To: "me", Bound: time.Minute, At: now},
		{From: "f2", To: "me", Bound: time.Minute, At: now},
		{From: "f1", To: "f2", Bound: -time.Hour, At: now}, // each merged the other's commit an hour before it was written
		{From: "f2", To: "f1", Bound: -time.Hour, At: now},
	}
	warnings, _ := st.clocks(now)
	if len(warnings) != 2 || warnings[0].Clone != "bob" || warnings[0].Offset < 2*time.Hour || warnings[1].Cycle == nil {
		t.Errorf("warnings %+v, want bob's clock 2h ahead", warnings)
	}
}

// A cycle of readings that cannot all be true is itself a lying clock:
// the warnings name the clones in it (doctor and sync print them), and
// only its own readings are left out of the bounds. Before, the cycle was
// named nowhere, and every bound through a third clone went with it: bob's
// clock, two hours behind as carl's commit that bob merged shows, was
// warned of no more.
func TestAClockCycleIsNamedAndTheOtherBoundsKept(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	st := &state{CloneID: "me", Writers: map[string]string{"bob": "bob", "carl": "carl", "f1": "m", "f2": "m"}}
	st.ClockEdges = []clockEdge{
		{From: "me", To: "carl", Bound: time.Minute, At: now}, // carl merged this clone's commit a minute after it
		{From: "carl", To: "me", Bound: time.Minute, At: now},
		{From: "carl", To: "bob", Bound: -2 * time.Hour, At: now}, // bob merged carl's commit, dated 2h before it
		{From: "bob", To: "me", Bound: 3 * time.Hour, At: now},
		{From: "f1", To: "me", Bound: time.Minute, At: now},
		{From: "f2", To: "me", Bound: time.Minute, At: now},
		{From: "f1", To: "f2", Bound: -time.Hour, At: now}, // each merged the other's commit an hour before it was written
		{From: "f2", To: "f1", Bound: -time.Hour, At: now},
	}
	warnings, _ := st.clocks(now)
	var got []string
	for _, w := range warnings {
		got = append(got, w.String())
	}
	if len(warnings) != 2 || warnings[0].Clone != "bob" || warnings[0].Offset > -time.Hour ||
		!slices.Equal(warnings[1].Cycle, []string{"f1", "f2"}) || !strings.Contains(got[1], "clones f1, f2 ") {
		t.Errorf("warnings:\n%s\nwant bob's clock 2h behind, and the cycle of f1 and f2", strings.Join(got, "\n"))
	}
}

// The same with commits pushed on the team's ledger: two made-up clones'
// commits, each merging the other's dated an hour before it. Sync and
// doctor (Check) both name the cycle.
func TestACycleOfPushedCommitsIsNamed(t *testing.T) {
	a, b, r, c := twoClones(t)
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	tip := "refs/l"
	for i, clone := range []string{"f1", "f2", "f1"} { // each an hour before its parent
		cmd := exec.Command("git", "-C", mal, "commit-tree", "refs/l^{tree}", "-p", tip, "-m", "queen: merge")
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_EMAIL=git-queen+"+clone+"@x",
			"GIT_COMMITTER_DATE="+c.now().Add(-time.Duration(i+1)*time.Hour).Format(time.RFC3339))
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		tip = strings.TrimSpace(string(out))
	}
	testgit.Run(t, mal, "push", "-q", "origin", tip+":"+ledger.Ref)
	named := func(ws []ClockWarning) bool {
		return slices.ContainsFunc(ws, func(w ClockWarning) bool { return slices.Equal(w.Cycle, []string{"f1", "f2"}) })
	}
	if res := b.sync(t); !named(res.Clocks) {
		t.Errorf("sync warned %v, want the cycle of f1 and f2", res.Clocks)
	}
	if h, err := Check(b.s.WS, c.now()); err != nil || !named(h.Clocks) {
		t.Errorf("doctor's check: %v, warned %v; want the cycle of f1 and f2", err, h.Clocks)
	}
}

// A commit dated centuries ahead gives a bound at the limit of a
// time.Duration, and a path of two such readings wrapped around to
// nothing: y, whose commit x merged, dated 400 years after x's own (itself
// 400 years ahead), was not warned of. Sums now stop at the limit.
func TestClockBoundsAtTheLimitDoNotWrap(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	limit := time.Duration(-1 << 63)
	st := &state{CloneID: "me", Writers: map[string]string{"x": "x", "y": "y"}}
	st.ClockEdges = []clockEdge{
		{From: "x", To: "me", Bound: limit, At: now},
		{From: "y", To: "x", Bound: limit, At: now},
	}
	warnings, _ := st.clocks(now)
	ahead := map[string]bool{}
	for _, w := range warnings {
		ahead[w.Clone] = w.Offset > records.MaxClockSkew
	}
	if !ahead["x"] || !ahead["y"] {
		t.Errorf("warnings %+v, want x and y ahead", warnings)
	}
}
