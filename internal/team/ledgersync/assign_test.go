package ledgersync

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/testgit"
)

// activeAssignments lists "droid issue" of every active assignment a clone
// sees, sorted.
func (c *clone) activeAssignments(t *testing.T) []string {
	t.Helper()
	list, problems, err := (&assignments.Store{S: c.s}).List(assignments.Filter{})
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	var out []string
	for _, a := range list {
		out = append(out, a.Droid+" "+a.IssueID)
	}
	slices.Sort(out)
	return out
}

func claimReq(issue, droid string) assignments.Request {
	return assignments.Request{IssueID: issue, Droid: droid, By: droid}
}

// Two clones claim one issue through one remote, the second one's push
// losing the race: one assignment, and the loser's is withdrawn and names
// the winner. An --offline claim of an issue another clone then claimed
// through the remote is withdrawn by the next sync, which names the winner.
func TestAssignThroughTheRemoteGrantsOnce(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	// a's claim reaches the remote between b's fetch and b's push: b's
	// push loses, and the fetch after it brings a's assignment, which b's,
	// already appended here, then loses to.
	raced := false
	var won *AssignResult
	testHook = func(p string) error {
		if p != "pushing" || raced {
			return nil
		}
		raced = true
		var err error
		won, err = a.sy.Assign("origin", claimReq("qb-2", "ann"))
		return err
	}
	res, err := b.sy.Assign("origin", claimReq("qb-2", "bob"))
	testHook = nil
	var taken *assignments.AlreadyAssignedError
	if !raced || !errors.As(err, &taken) || taken.Active.Droid != "ann" || taken.Active.ID != won.Assigned.ID ||
		taken.Withdrawn == nil || taken.Withdrawn.Droid != "bob" || res.Sync.Attempts != 2 || res.Sync.Pushed {
		t.Fatalf("the claim that lost the race: %v (attempts %d, pushed %v)", err, res.Sync.Attempts, res.Sync.Pushed)
	}
	if !strings.Contains(err.Error(), "went to ann ("+won.Assigned.ID+")") || !strings.Contains(err.Error(), "reached origin first") {
		t.Fatalf("the loser's error does not name the winner: %v", err)
	}
	if got := b.activeAssignments(t); !slices.Equal(got, []string{"ann qb-2"}) {
		t.Fatalf("after the lost race b sees %v", got)
	}
	// A claim of an issue the remote shows taken is refused before
	// anything is appended, naming the remote.
	if _, err := b.sy.Assign("origin", claimReq("qb-2", "cat")); !errors.As(err, &taken) || taken.Remote != "origin" || taken.Withdrawn != nil {
		t.Fatalf("a claim of a published assignment: %v", err)
	}

	// Offline: b claims qb-3 on its own; a claims it through the remote.
	if _, err := (&assignments.Store{S: b.s}).Assign(claimReq("qb-3", "bob")); err != nil {
		t.Fatal(err)
	}
	c.tick(time.Second)
	if _, err := a.sy.Assign("origin", claimReq("qb-3", "ann")); err != nil {
		t.Fatal(err)
	}
	syncRes := b.sync(t)
	if w := syncRes.WithdrawnAssignments; len(w) != 1 || w[0].Lost.IssueID != "qb-3" || w[0].Lost.Droid != "bob" || w[0].Winner.Droid != "ann" {
		t.Fatalf("withdrawn assignments: %+v", w)
	}
	a.sync(t)
	for _, cl := range []*clone{a, b} {
		if got, want := cl.activeAssignments(t), []string{"ann qb-2", "ann qb-3"}; !slices.Equal(got, want) {
			t.Fatalf("%s: active %v, want %v", cl.dir, got, want)
		}
		doubles, err := (&assignments.Store{S: cl.s}).Doubles()
		if err != nil || len(doubles) != 0 {
			t.Fatalf("%s: double assignments %+v %v", cl.dir, doubles, err)
		}
	}
	// The withdrawn one says why, in its reason.
	all, _, _ := (&assignments.Store{S: a.s}).List(assignments.Filter{Droid: "bob", All: true})
	for _, x := range all {
		if x.Status != records.AssignmentReleased || !strings.HasPrefix(x.Reason, "withdrawn: lost to ann's") {
			t.Fatalf("bob's withdrawn assignment as a sees it: %+v", x)
		}
	}
}

// A forced reassignment through the remote ends the holder's assignment on
// every clone and tells the holder; one that cannot be published takes
// itself back and gives the holder's assignment back.
func TestForcedAssignAcrossClones(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	first, err := a.sy.Assign("origin", claimReq("qb-2", "ann"))
	if err != nil {
		t.Fatal(err)
	}
	c.tick(time.Second)

	// The push fails after the fetch (a stands for any failure there).
	testHook = func(p string) error {
		if p == "pushing" {
			return errors.New("the machine went away")
		}
		return nil
	}
	force := assignments.Request{IssueID: "qb-2", Droid: "bob", By: "bob", Force: true, Reason: "ann is away"}
	res, err := b.sy.Assign("origin", force)
	testHook = nil
	if err == nil || res.Undone == nil || res.Undone.Withdrawn == nil || len(res.Undone.Restored) != 1 || res.Undone.Restored[0].ID != first.Assigned.ID {
		t.Fatalf("a forced reassignment that could not be published: %v, undone %+v", err, res.Undone)
	}
	if got := b.activeAssignments(t); !slices.Equal(got, []string{"ann qb-2"}) {
		t.Fatalf("after the failed reassignment b sees %v", got)
	}

	c.tick(time.Second)
	res, err = b.sy.Assign("origin", force)
	if err != nil || res.Replaced == nil || res.Replaced.ID != first.Assigned.ID || len(res.Notified) != 1 || !res.Sync.Pushed {
		t.Fatalf("the forced reassignment: %v %+v", err, res)
	}
	a.sync(t)
	b.sync(t)
	for _, cl := range []*clone{a, b} {
		if got := cl.activeAssignments(t); !slices.Equal(got, []string{"bob qb-2"}) {
			t.Fatalf("%s: active %v, want bob's", cl.dir, got)
		}
	}
	// ann, on her clone, was told three things: taken, given back, taken.
	got := a.inbox(t, "ann")
	if len(got) != 3 || !strings.Contains(got[0], "bob took over qb-2") || !strings.Contains(got[1], "did not hold") ||
		!strings.Contains(got[2], "bob took over qb-2") {
		t.Fatalf("ann's inbox on her clone: %q", got)
	}
}

// With the remote gone, an assignment through it assigns nothing and says
// how to go on.
func TestAssignWithTheRemoteGoneAssignsNothing(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a := newClone(t, r, c)
	testgit.Run(t, a.dir, "remote", "set-url", "origin", "file://"+filepath.Join(t.TempDir(), "gone.git"))
	_, err := a.sy.Assign("origin", claimReq("qb-2", "ann"))
	var unpublished *UnpublishedError
	if !errors.As(err, &unpublished) || !strings.Contains(err.Error(), "nothing was assigned") ||
		!strings.Contains(err.Error(), "retry when origin can be reached") || strings.Contains(err.Error(), "offline") {
		t.Fatalf("assign with the remote gone: %v\nwant a retry, and no offline grant, which no tool makes", err)
	}
	// The command line says how to take the issue meanwhile.
	if said := unpublished.Text().In(flagWords); !strings.Contains(said, "claim --offline") {
		t.Fatalf("assign with the remote gone, on the command line: %s", said)
	}
	all, _, _ := (&assignments.Store{S: a.s}).List(assignments.Filter{All: true})
	if len(all) != 0 {
		t.Fatalf("something was written: %+v", all)
	}
}

// flagWords are the words of a command line whose flags are all --name.
var flagWords = wording.CommandLine(func(p wording.Param) string { return "--" + string(p) })
