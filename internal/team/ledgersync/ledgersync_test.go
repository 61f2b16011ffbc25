package ledgersync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/testgit"
)

// clock is a settable time, so tests decide which version is newer.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func (c *clock) tick(d time.Duration) { c.t = c.t.Add(d) }

// clone is one machine: a clone of the shared remote with its live store.
type clone struct {
	dir string
	s   *store.Store
	sy  *Syncer
}

func newRemote(t *testing.T) testgit.Remote {
	t.Helper()
	testgit.Isolate(t)
	r := testgit.FileRemote(t)
	seed := testgit.Init(t)
	testgit.Run(t, seed, "push", "-q", r.URL, "main")
	return r
}

func newClone(t *testing.T, r testgit.Remote, c *clock) *clone {
	t.Helper()
	dir := testgit.Clone(t, r)
	ws, err := workspace.Find(workspace.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s := &store.Store{WS: ws, Clock: c.now, NoSync: true}
	s.Fetched = Fetched(ws, s.Now)
	sy, err := New(s, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sy.Close() })
	return &clone{dir: dir, s: s, sy: sy}
}

func (c *clone) sync(t *testing.T) *Result {
	t.Helper()
	res, err := c.sy.Sync("origin")
	if err != nil {
		t.Fatalf("sync in %s: %v", c.dir, err)
	}
	return res
}

func (c *clone) send(t *testing.T, from, to, subject string) records.Message {
	t.Helper()
	sent, err := (&messages.Store{S: c.s}).Send(messages.Draft{From: from, To: to, Subject: subject})
	if err != nil {
		t.Fatal(err)
	}
	return sent[0]
}

// inbox is what droid sees: id and state of each message.
func (c *clone) inbox(t *testing.T, droid string) []string {
	t.Helper()
	sel, err := c.s.Select(records.MessagesFile, store.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range sel.Entries {
		m, err := records.DecodeMessage(e.Raw)
		if err != nil {
			t.Fatal(err)
		}
		if m.To == droid {
			out = append(out, fmt.Sprintf("%s %s read=%v deleted=%v", m.ID, m.Subject, m.Read, m.Deleted))
		}
	}
	return out
}

// holds are the reservations active in c at now, as "droid pattern",
// sorted.
func (c *clone) holds(t *testing.T, now time.Time) []string {
	t.Helper()
	active, err := (&reservations.Store{S: c.s}).Active(now)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range active {
		out = append(out, l.Droid+" "+l.Pattern)
	}
	slices.Sort(out)
	return out
}

// ledgerLines are every line of the local ledger, to look for repeats.
func (c *clone) ledgerLines(t *testing.T) []string {
	t.Helper()
	tip, err := c.sy.ledger.Refs().Read(ledger.Ref)
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.sy.ledger.All(tip)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, log := range ledger.Logs {
		for _, l := range all[log.File] {
			out = append(out, string(l))
		}
	}
	return out
}

// syncKilledAt runs a sync in c that is killed at point (see testHook).
func (c *clone) syncKilledAt(t *testing.T, point string) {
	t.Helper()
	errCrash := errors.New("killed")
	testHook = func(p string) error {
		if p == point {
			return errCrash
		}
		return nil
	}
	_, err := c.sy.Sync("origin")
	testHook = nil
	if !errors.Is(err, errCrash) {
		t.Fatalf("the crash at %s did not happen: %v", point, err)
	}
}

func noRepeats(t *testing.T, what string, lines []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Fatalf("%s holds a line twice: %s", what, l)
		}
		seen[l] = true
	}
}

func TestSyncCarriesMessagesBothWays(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	m1 := a.send(t, "ann", "bob", "from a")
	res := a.sync(t)
	if !res.Pushed || res.Sent["messages"] != 1 || len(res.Received) != 0 {
		t.Fatalf("first sync: %+v", res)
	}
	m2 := b.send(t, "bob", "ann", "from b")
	res = b.sync(t)
	if !res.Pushed || res.Sent["messages"] != 1 || res.Received["messages"] != 1 {
		t.Fatalf("second sync: %+v", res)
	}
	a.sync(t)
	for _, cl := range []*clone{a, b} {
		if got := cl.inbox(t, "bob"); len(got) != 1 || !strings.HasPrefix(got[0], m1.ID) {
			t.Fatalf("bob's inbox in %s: %v", cl.dir, got)
		}
		if got := cl.inbox(t, "ann"); len(got) != 1 || !strings.HasPrefix(got[0], m2.ID) {
			t.Fatalf("ann's inbox in %s: %v", cl.dir, got)
		}
		noRepeats(t, "the ledger of "+cl.dir, cl.ledgerLines(t))
	}
	// Nothing new: nothing moves, nothing is pushed.
	before := testgit.Run(t, r.Dir, "rev-parse", ledger.Ref)
	if res := a.sync(t); res.Pushed || len(res.Sent)+len(res.Received) != 0 || testgit.Run(t, r.Dir, "rev-parse", ledger.Ref) != before {
		t.Fatalf("an idle sync did something: %+v", res)
	}
	// The other clone's records are applied to received/, never to the
	// log this clone writes.
	own, _ := os.ReadFile(a.s.Log(records.MessagesFile).Path)
	if strings.Contains(string(own), m2.ID) {
		t.Fatal("b's message was written into a's own log")
	}
}

// Concurrent versions of one record, arriving in either order, leave every
// clone with the newest: an older version never becomes the last line of
// its id in received/.
func TestConcurrentVersionsConvergeOnTheNewest(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	sender, reader, deleter := newClone(t, r, c), newClone(t, r, c), newClone(t, r, c)
	m := sender.send(t, "ann", "bob", "hello")
	sender.sync(t)
	reader.sync(t)
	deleter.sync(t)
	c.tick(time.Minute)
	if _, _, err := (&messages.Store{S: reader.s}).MarkRead(m.ID, "bob"); err != nil { // older
		t.Fatal(err)
	}
	c.tick(time.Minute)
	if _, err := (&messages.Store{S: deleter.s}).Delete(m.ID, "bob"); err != nil { // newer
		t.Fatal(err)
	}
	deleter.sync(t) // the newer version reaches the remote first
	sender.sync(t)  // and the sender
	reader.sync(t)  // then the older one
	for range 2 {
		for _, cl := range []*clone{sender, reader, deleter} {
			cl.sync(t)
		}
	}
	for _, cl := range []*clone{sender, reader, deleter} {
		got := cl.inbox(t, "bob")
		if len(got) != 1 || !strings.HasSuffix(got[0], "read=false deleted=true") {
			t.Fatalf("%s sees %v, want the message deleted", cl.dir, got)
		}
		// Within received/, the last line of the id is its newest there.
		data, _ := os.ReadFile(store.ReceivedPath(cl.s.WS, records.MessagesFile))
		var newest, last string
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if strings.Contains(line, m.ID) {
				if records.VersionKey([]byte(line)) > records.VersionKey([]byte(newest)) {
					newest = line
				}
				last = line
			}
		}
		if last != newest {
			t.Fatalf("%s: received/ ends with an older version of %s:\n%s\nnewest there:\n%s", cl.dir, m.ID, last, newest)
		}
	}
}

// A process killed at any point of a round leaves the store and the
// ledger consistent, and the next sync finishes with nothing lost or
// doubled.
func TestInterruptedRoundsAreFinishedOrUndone(t *testing.T) {
	for _, point := range []string{"recorded", "applied", "intent-saved", "ref-moved", "pushing", "pushed"} {
		t.Run(point, func(t *testing.T) {
			r := newRemote(t)
			c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
			a, b := newClone(t, r, c), newClone(t, r, c)
			b.send(t, "bob", "ann", "from b")
			b.sync(t)
			a.send(t, "ann", "bob", "from a")
			a.syncKilledAt(t, point)
			a.sync(t)
			b.sync(t)
			a.sync(t)
			for _, cl := range []*clone{a, b} {
				if got := cl.inbox(t, "ann"); len(got) != 1 {
					t.Fatalf("ann's inbox in %s: %v", cl.dir, got)
				}
				if got := cl.inbox(t, "bob"); len(got) != 1 {
					t.Fatalf("bob's inbox in %s: %v", cl.dir, got)
				}
				noRepeats(t, "the ledger of "+cl.dir, cl.ledgerLines(t))
				data, _ := os.ReadFile(store.ReceivedPath(cl.s.WS, records.MessagesFile))
				noRepeats(t, "received/ of "+cl.dir, strings.Split(strings.TrimSpace(string(data)), "\n"))
			}
		})
	}
}

// Compacting or rewriting the local log between syncs records nothing
// twice: our own compaction moves the marks, anything else is reconciled
// with the ledger.
func TestRewrittenLogsAreNotRecordedTwice(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a := newClone(t, r, c)
	rs := &reservations.Store{S: a.s}
	for i := range 3 {
		if _, err := rs.Reserve(reservations.Request{Patterns: []string{fmt.Sprintf("p%d/**", i)}, Droid: "ann"}); err != nil {
			t.Fatal(err)
		}
	}
	a.sync(t)
	c.tick(time.Second)
	if _, err := rs.Change(reservations.ChangeRequest{By: "ann", Patterns: []string{"p0/**"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.sy.Rewrite(func(tx *jsonl.Tx, log *jsonl.Log, marks []int64) (jsonl.RewriteStats, []int64, error) {
		return tx.Compact(log, marks)
	}); err != nil {
		t.Fatal(err)
	}
	res := a.sync(t)
	if res.Sent["reservations"] != 1 {
		t.Fatalf("after compaction sync sent %v, want only the release", res.Sent)
	}
	noRepeats(t, "the ledger", a.ledgerLines(t))

	// A rewrite git-queen did not make (here: the log reversed by hand)
	// is reconciled line by line against the ledger.
	path := a.s.Log(records.ReservationsFile).Path
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	slices.Reverse(lines)
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	if res := a.sync(t); len(res.Sent) != 0 {
		t.Fatalf("after a reordering sync sent %v, want nothing", res.Sent)
	}
	noRepeats(t, "the ledger", a.ledgerLines(t))
}

// A remote commit in a format this version does not write is set aside,
// named (with the advice to upgrade, for a team that did), and its honest
// parent is merged instead: the sync goes on, and its push leaves the
// commit it could not read out of the remote's ledger.
func TestRemoteWithAnotherLedgerFormatIsSetAside(t *testing.T) {
	a, b, future := aFutureLedger(t)
	b.send(t, "bob", "ann", "y")
	res := b.sync(t)
	if len(res.SetAside) != 1 || res.SetAside[0].Commit != future || res.SetAside[0].Path != "FORMAT" ||
		!strings.Contains(res.SetAside[0].Reason, "upgrade git-queen") {
		t.Fatalf("set aside: %+v", res.SetAside)
	}
	if got := b.inbox(t, "bob"); len(got) != 1 || !strings.Contains(got[0], " x ") {
		t.Fatalf("bob's inbox after the sync: %v (ann's message is in the set-aside commit's parent)", got)
	}
	if !res.Pushed {
		t.Fatalf("the sync did not push: %+v", res)
	}
	if remoteTip(t, a) == future {
		t.Fatalf("the remote's ledger is still the future commit")
	}
	if a.sync(t); len(a.inbox(t, "ann")) != 1 {
		t.Fatalf("ann did not get bob's message: %v", a.inbox(t, "ann"))
	}
}

func TestUnreachableRemoteSaysSo(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a := newClone(t, r, c)
	testgit.Run(t, a.dir, "remote", "set-url", "origin", "file://"+filepath.Join(t.TempDir(), "gone.git"))
	_, err := a.sy.Sync("origin")
	if !IsRemoteError(err) || !strings.Contains(err.Error(), "cannot fetch the ledger from origin") {
		t.Fatalf("sync with an unreachable remote: %v", err)
	}
}

// What `git fetch` brought is seen by reservation checks before any sync,
// and no longer once a sync merged it.
func TestFetchedReservationsCountBeforeTheSync(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	if _, err := (&reservations.Store{S: a.s}).Reserve(reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	held := func() int {
		holds, err := (&reservations.Store{S: b.s}).Check("bob", []string{"src/x.go"})
		if err != nil {
			t.Fatal(err)
		}
		return len(holds)
	}
	if held() != 0 {
		t.Fatal("held before anything was fetched")
	}
	testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.FetchRefspec("origin"))
	if held() != 1 {
		t.Fatal("a fetched reservation does not count")
	}
	paths, _ := b.s.Fetched(records.ReservationsFile)
	if len(paths) != 1 {
		t.Fatalf("fetched sources: %v", paths)
	}
	b.sync(t)
	if paths, _ := b.s.Fetched(records.ReservationsFile); len(paths) != 0 {
		t.Fatalf("after the sync the fetched ledger is still read apart: %v", paths)
	}
	if held() != 1 {
		t.Fatal("the synced reservation does not count")
	}
}

// Two clones racing for overlapping patterns through one remote: one
// grant, and the loser withdraws its grant and names the winner.
func TestReserveThroughTheRemoteGrantsOnce(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	// a's grant reaches the remote between b's fetch and b's push: b's
	// push loses the race, and the fetch after it brings a's grant, which
	// b's grant, already appended here, then loses to.
	raced := false
	testHook = func(p string) error {
		if p != "pushing" || raced {
			return nil
		}
		raced = true
		_, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true})
		return err
	}
	res, err := b.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/api/**"}, Droid: "bob", Exclusive: true})
	testHook = nil
	var conflict *reservations.ConflictError
	if !raced || !errors.As(err, &conflict) || conflict.Conflicts[0].Held.Droid != "ann" || res.Sync.Attempts != 2 {
		t.Fatalf("the reserve that lost the race: %v (attempts %d)", err, res.Sync.Attempts)
	}
	// An --offline grant that overlaps a published one is withdrawn by the
	// next sync, which names the winner.
	if _, err := (&reservations.Store{S: b.s}).Reserve(reservations.Request{Patterns: []string{"lib/**"}, Droid: "bob", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"lib/x/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	syncRes := b.sync(t)
	if res := syncRes; len(res.Withdrawn) != 1 || res.Withdrawn[0].Lost.Pattern != "lib/**" || res.Withdrawn[0].Winner.Droid != "ann" {
		t.Fatalf("withdrawn: %+v", syncRes.Withdrawn)
	}
	a.sync(t)
	for _, cl := range []*clone{a, b} {
		if got, want := cl.holds(t, c.now()), []string{"ann lib/x/**", "ann src/**"}; !slices.Equal(got, want) {
			t.Fatalf("%s: active %v, want %v", cl.dir, got, want)
		}
	}
}

// aFutureLedger is a remote whose ledger ann wrote one message to, under
// a commit that rewrites its FORMAT file as a future version would, and
// two clones of it that hold neither.
func aFutureLedger(t *testing.T) (a, b *clone, future string) {
	t.Helper()
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b = newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "bob", "x")
	a.sync(t)
	tmp := testgit.Clone(t, r)
	testgit.Run(t, tmp, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	testgit.Run(t, tmp, "checkout", "-q", "refs/l")
	testgit.Write(t, tmp, "FORMAT", "git-queen ledger 9\n")
	testgit.Run(t, tmp, "commit", "-qam", "future")
	future = testgit.Run(t, tmp, "rev-parse", "HEAD")
	testgit.Run(t, tmp, "push", "-q", "origin", "HEAD:"+ledger.Ref)
	return a, b, future
}
