package ledgersync

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// Carl pushes a version of ann's reservation that names him its holder,
// in a chunk of October's directory: its path sorts before November's,
// which holds ann's first version. A clone joining applied the chunks in
// path order, took carl's as the record's first version and set ann's
// aside. What decides is which commit of the ledger first brought the
// record: a joining clone ends holding what a clone that synced all along
// holds, and names rule parties as it does.
func TestAJoinJudgesPartiesByTheCommitThatFirstBroughtTheRecord(t *testing.T) {
	for _, c := range []struct {
		name string
		at   func(ann time.Time) time.Time // carl's version's time, from ann's
	}{
		{"a later version in an earlier month's directory", func(ann time.Time) time.Time { return ann.Add(time.Minute) }},
		{"a version of the same time, larger", func(ann time.Time) time.Time { return ann }},
		{"a version dated a month before", func(ann time.Time) time.Time { return ann.AddDate(0, -1, 0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, clk, a, b, late := annReservesDocs(t)
			pushBeforeFirst(t, r, a, "carl", c.at, onTop)
			honest := b.sync(t)
			joiner := newClone(t, r, clk)
			joined := joiner.sync(t)
			want := []string{"ann docs/**"}
			if got := b.holds(t, clk.now()); !slices.Equal(got, want) {
				t.Fatalf("the clone that synced all along holds %v, want %v", got, want)
			}
			if got := joiner.holds(t, clk.now()); !slices.Equal(got, want) {
				t.Errorf("the joining clone holds %v, want %v", got, want)
			}
			if h, j := partiesNoted(honest), partiesNoted(joined); h && !j {
				t.Errorf("the clone that synced all along names rule parties, the joining clone does not: %+v", joined.SetAside)
			}
			// A clone that synced before ann reserved sees both
			// versions in a fetch, then meets them in one sync that
			// is not a join.
			if got := late.fetchedHolds(t, clk.now()); !slices.Equal(got, want) {
				t.Errorf("having fetched, the clone that synced before ann reserved holds %v, want %v", got, want)
			}
			lateRes := late.sync(t)
			if got := late.holds(t, clk.now()); !slices.Equal(got, want) {
				t.Errorf("the clone that synced before ann reserved holds %v, want %v", got, want)
			}
			if h, l := partiesNoted(honest), partiesNoted(lateRes); h && !l {
				t.Errorf("the clone that synced all along names rule parties, the clone that synced before does not: %+v", lateRes.SetAside)
			}
		})
	}
}

// annReservesDocs makes a remote and three clones of it: late, which
// synced once before; a, where ann reserves docs/** and syncs; and b,
// which syncs after it. The clock is then a second later.
func annReservesDocs(t *testing.T) (r testgit.Remote, clk *clock, a, b, late *clone) {
	t.Helper()
	r = newRemote(t)
	clk = &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b, late = newClone(t, r, clk), newClone(t, r, clk), syncedBefore(t, r, clk)
	if _, err := (&reservations.Store{S: a.s}).Reserve(reservations.Request{Patterns: []string{"docs/**"}, Droid: "ann", Exclusive: true, TTL: 4 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	b.sync(t)
	clk.tick(time.Second)
	return r, clk, a, b, late
}

// pushing is how pushBeforeFirst brings its version.
type pushing int

const (
	onTop                pushing = iota // in a commit on the remote's ledger
	inAHistoryOfItsOwn                  // in a root commit, merged in as the first parent
	withAnnsInOneCommit                 // in the commit that brought ann's, forced in its place
	afterAnnsInOneCommit                // so, in December's directory, which sorts after November's
)

// pushBeforeFirst pushes, on the remote's ledger, a version of the one
// reservation in a's log that names droid as its holder, written at the
// time at gives of the reservation's own,
// in a chunk of its own under reservations/2026-10/, which sorts before
// every chunk of November (or 2026-12/, afterAnnsInOneCommit).
func pushBeforeFirst(t *testing.T, r testgit.Remote, a *clone, droid string, at func(time.Time) time.Time, how pushing) {
	t.Helper()
	data, err := os.ReadFile(a.s.Log(records.ReservationsFile).Path)
	if err != nil {
		t.Fatal(err)
	}
	// Ann's bytes, field for field, so that at the same time carl's
	// (naming "carl" where hers name "ann") are the larger.
	first := strings.SplitN(string(data), "\n", 2)[0]
	var m map[string]string
	json.Unmarshal([]byte(first), &m) // its strings; the rest is left out
	updated, _ := time.Parse(time.RFC3339Nano, m["updated_at"])
	when := at(updated)
	text := func(t time.Time) string { return `"` + t.Format(time.RFC3339Nano) + `"` }
	created := m["created_at"]
	if c, _ := time.Parse(time.RFC3339Nano, created); when.Before(c) {
		created = when.Format(time.RFC3339Nano)
	}
	line := strings.NewReplacer(`"droid":"ann"`, `"droid":"`+droid+`"`, `"updated_by":"ann"`, `"updated_by":"`+droid+`"`,
		`"created_at":"`+m["created_at"]+`"`, `"created_at":"`+created+`"`,
		`"updated_at":"`+m["updated_at"]+`"`, `"updated_at":`+text(when),
		`"expires_at":"`+m["expires_at"]+`"`, `"expires_at":`+text(when.Add(time.Hour))).Replace(first)
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	blob := gitWithStdin(t, mal, line+"\n", "hash-object", "-w", "--stdin")
	hundred := gitWithStdin(t, mal, "100644 blob "+blob+"\t00.jsonl\n", "mktree")
	month := gitWithStdin(t, mal, "040000 tree "+hundred+"\t000\n", "mktree")
	dir := "2026-10"
	if how == afterAnnsInOneCommit {
		dir = "2026-12"
	}
	logTree := gitWithStdin(t, mal, testgit.Run(t, mal, "ls-tree", "refs/l:reservations")+"\n040000 tree "+month+"\t"+dir+"\n", "mktree")
	var root []string
	for _, e := range strings.Split(testgit.Run(t, mal, "ls-tree", "refs/l"), "\n") {
		if !strings.HasSuffix(e, "\treservations") {
			root = append(root, e)
		}
	}
	root = append(root, "040000 tree "+logTree+"\treservations")
	tree := gitWithStdin(t, mal, strings.Join(root, "\n")+"\n", "mktree")
	parent := "refs/l"
	if how >= withAnnsInOneCommit {
		// The parent of the merge that brought ann's that holds no
		// reservation.
		parent = "refs/l^1"
		if testgit.Run(t, mal, "ls-tree", parent, "reservations") != "" {
			parent = "refs/l^2"
		}
	}
	commit := testgit.Run(t, mal, "commit-tree", tree, "-p", parent, "-m", "queen: record 1 reservation")
	if how == inAHistoryOfItsOwn {
		// Carl's chunk alone in a history of its own, merged in as
		// the first parent: the first-parent chain then reaches carl's
		// version before ann's.
		side := gitWithStdin(t, mal, "040000 tree "+gitWithStdin(t, mal, "040000 tree "+month+"\t2026-10\n", "mktree")+"\treservations\n", "mktree")
		sideCommit := testgit.Run(t, mal, "commit-tree", side, "-m", "queen: record 1 reservation")
		commit = testgit.Run(t, mal, "commit-tree", tree, "-p", sideCommit, "-p", "refs/l", "-m", "queen: merge")
	}
	testgit.Run(t, mal, "push", "-q", "origin", "+"+commit+":"+ledger.Ref)
}

// Carl brings his version of ann's reservation in a history of its own
// (a root commit holding only his chunk) and merges it into the ledger as
// the merge's first parent, so that a walk down first parents meets his
// version before ann's; or he pushes one commit that brings ann's and his
// together, in place of the commit that brought hers, so that each
// precedes the other (a joining clone pinned the last met in the tree's
// order: his, when his path sorts after hers). The history cannot say
// which came first: a clone that held neither takes neither, and names
// rule parties; the clone that synced all along keeps ann's.
func TestAJoinTakesNeitherVersionWhenTheHistoryCannotSay(t *testing.T) {
	for _, c := range []struct {
		name string
		how  pushing
	}{
		{"carl's from a history of its own", inAHistoryOfItsOwn},
		{"one commit, carl's path first", withAnnsInOneCommit},
		{"one commit, ann's path first", afterAnnsInOneCommit},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, clk, a, b, late := annReservesDocs(t)
			pushBeforeFirst(t, r, a, "carl", func(ann time.Time) time.Time { return ann.Add(time.Minute) }, c.how)
			joiner := newClone(t, r, clk)
			joined := joiner.sync(t)
			if got := joiner.holds(t, clk.now()); len(got) != 0 {
				t.Errorf("the joining clone holds %v, want neither version", got)
			}
			if !partiesNoted(joined) {
				t.Errorf("the joining clone does not name rule parties: %+v", joined.SetAside)
			}
			if got := late.fetchedHolds(t, clk.now()); len(got) != 0 {
				t.Errorf("having fetched, the clone that synced before ann reserved holds %v, want neither version", got)
			}
			lateRes := late.sync(t)
			if got := late.holds(t, clk.now()); len(got) != 0 {
				t.Errorf("the clone that synced before ann reserved holds %v, want neither version", got)
			}
			if !partiesNoted(lateRes) {
				t.Errorf("the clone that synced before ann reserved does not name rule parties: %+v", lateRes.SetAside)
			}
			b.sync(t)
			if got, want := b.holds(t, clk.now()), []string{"ann docs/**"}; !slices.Equal(got, want) {
				t.Errorf("the clone that synced all along holds %v, want %v", got, want)
			}
		})
	}
}

// A clone holds ann's reservation when a fetch brings her release of it
// and carl's version, from a history of its own: the history cannot say
// which came first, but the clone holds ann's, as its sync judges by.
// Having fetched, it saw ann's reservation held until its next sync.
func TestAFetchShowsTheReleaseOfAReservationHeldHere(t *testing.T) {
	r, clk, a, b, _ := annReservesDocs(t)
	if _, err := (&reservations.Store{S: a.s}).Change(reservations.ChangeRequest{By: "ann", All: true}); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	pushBeforeFirst(t, r, a, "carl", func(ann time.Time) time.Time { return ann.Add(time.Minute) }, inAHistoryOfItsOwn)
	if got := b.fetchedHolds(t, clk.now()); len(got) != 0 {
		t.Errorf("having fetched, the clone that held ann's reservation holds %v, want none", got)
	}
	b.sync(t)
	if got := b.holds(t, clk.now()); len(got) != 0 {
		t.Errorf("the clone that held ann's reservation holds %v after its sync, want none", got)
	}
}

// syncedBefore is a clone that synced a ledger holding a message, before
// any reservation: its next sync is not a join.
func syncedBefore(t *testing.T, r testgit.Remote, clk *clock) *clone {
	t.Helper()
	c := newClone(t, r, clk)
	c.send(t, "dan", "eve", "hello")
	c.sync(t)
	return c
}

// fetchedHolds fetches the remote's ledger (no sync) and says what c
// holds then: what check and the hooks see.
func (c *clone) fetchedHolds(t *testing.T, now time.Time) []string {
	t.Helper()
	testgit.Run(t, c.dir, "fetch", "-q", "origin", ledger.FetchRefspec("origin"))
	return c.holds(t, now)
}

// partiesNoted says whether res set aside versions for rule parties.
func partiesNoted(res *Result) bool {
	return slices.ContainsFunc(res.SetAside, func(n SetAside) bool { return n.Rule == records.RuleParties })
}
