package roster_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/testgit"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

type clock struct{ now time.Time }

// lastSeen is when droid was last seen as of now (see Droid.Last), and
// false when it never was.
func lastSeen(s *roster.Store, now time.Time, droid string) (time.Time, bool, error) {
	list, err := s.List(now, nil)
	if err != nil {
		return time.Time{}, false, err
	}
	for _, d := range list {
		if d.Name == droid && d.Last != nil {
			return *d.Last, true, nil
		}
	}
	return time.Time{}, false, nil
}

func (c *clock) Now() time.Time { return c.now }

func newStore(t *testing.T) (*roster.Store, *clock) {
	t.Helper()
	testgit.Isolate(t)
	ws, err := workspace.Find(workspace.Options{Dir: testgit.Init(t)})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{now: t0}
	return &roster.Store{S: &store.Store{WS: ws, Clock: c.Now, NoSync: true}}, c
}

func logLines(t *testing.T, s *roster.Store) int {
	t.Helper()
	data, err := os.ReadFile(s.S.Log(records.MessagesFile).Path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// A sighting moves at most once per roster.Interval: the commands run in between
// append nothing, and the log holds one version per move.
func TestNoteWritesAtMostOncePerInterval(t *testing.T) {
	s, c := newStore(t)
	here := roster.Place{Clone: "host:/repo/.git", Worktree: "/repo"}
	steps := []struct {
		after time.Duration
		wrote bool
		lines int
	}{
		{0, true, 1},
		{time.Second, false, 1},
		{roster.Interval - time.Second, false, 1},
		{roster.Interval, true, 2},
		{roster.Interval + time.Minute, false, 2},
		{4 * roster.Interval, true, 3},
	}
	var at time.Time
	for i, st := range steps {
		at = t0.Add(st.after)
		c.now = at
		wrote, err := s.Note("ann", here)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if wrote != st.wrote || logLines(t, s) != st.lines {
			t.Fatalf("step %d (+%s): wrote %v, %d lines; want %v, %d", i, st.after, wrote, logLines(t, s), st.wrote, st.lines)
		}
	}
	list, err := s.Sightings()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || !list[0].First.Equal(t0) || !list[0].Last.Equal(at) || list[0].Place != here || list[0].Droid != "ann" {
		t.Fatalf("sightings: %+v; want ann first %s last %s at %+v", list, t0, at, here)
	}
	// Another worktree of the same droid is another sighting.
	if wrote, err := s.Note("ann", roster.Place{Clone: here.Clone, Worktree: "/repo-2"}); err != nil || !wrote {
		t.Fatalf("second worktree: wrote %v, %v", wrote, err)
	}
	if list, _ := s.Sightings(); len(list) != 2 {
		t.Fatalf("two worktrees: %d sightings", len(list))
	}
}

// A presence record is a deleted message to oneself: no inbox shows it,
// @all does not reach a droid only seen so, and --to accepts the droid.
func TestPresenceIsInvisibleToMessageReaders(t *testing.T) {
	s, _ := newStore(t)
	if _, err := s.Note("ann", roster.Place{Clone: "c", Worktree: "w"}); err != nil {
		t.Fatal(err)
	}
	m := &messages.Store{S: s.S}
	page, err := m.Inbox("ann", messages.InboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Messages) != 0 {
		t.Fatalf("ann's inbox shows her presence: %+v", page.Messages)
	}
	// @all reaches those who wrote or were sent something, as before.
	known, err := messages.KnownDroids(s.S)
	if err != nil || len(known) != 0 {
		t.Fatalf("known droids %v, %v; want none: a presence record is not a message", known, err)
	}
	if _, err := m.Send(messages.Draft{From: "bob", To: "ann", Subject: "hi", CheckRecipients: true}); err != nil {
		t.Fatalf("a message to a droid only seen through presence: %v", err)
	}
	// A typo of her name is refused, naming her.
	_, err = m.Send(messages.Draft{From: "bob", To: "anne", Subject: "hi", CheckRecipients: true})
	if err == nil || !strings.Contains(err.Error(), `no droid "anne"`) || !strings.Contains(err.Error(), "did you mean ann?") {
		t.Fatalf("a message to anne: %v; want a refusal suggesting ann", err)
	}
}

// List takes first and last sightings from every record a droid wrote and
// from its presence, bounds the future by now, and lists recipients that
// never wrote anything without times.
func TestListAndSilent(t *testing.T) {
	s, c := newStore(t)
	m := &messages.Store{S: s.S}
	if _, err := m.Send(messages.Draft{From: "ann", To: "bob", Subject: "hi", NewRecipients: true, CheckRecipients: true}); err != nil {
		t.Fatal(err)
	}
	c.now = t0.Add(2 * time.Hour)
	if _, err := s.Note("carl", roster.Place{Clone: "c", Worktree: "w"}); err != nil {
		t.Fatal(err)
	}
	c.now = t0.Add(3 * time.Hour)
	if _, err := m.Send(messages.Draft{From: "carl", To: "ann", Subject: "again"}); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(4 * time.Hour)
	list, err := s.List(now, []string{"dora"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]time.Duration{"ann": {0, 0}, "carl": {2 * time.Hour, 3 * time.Hour}}
	names := []string{}
	for _, d := range list {
		names = append(names, d.Name)
		w, ok := want[d.Name]
		switch {
		case !ok && (d.First != nil || d.Last != nil):
			t.Errorf("%s never wrote anything but has times %v %v", d.Name, d.First, d.Last)
		case ok && (d.First == nil || d.Last == nil || !d.First.Equal(t0.Add(w[0])) || !d.Last.Equal(t0.Add(w[1]))):
			t.Errorf("%s: first %v last %v; want +%s +%s", d.Name, d.First, d.Last, w[0], w[1])
		}
	}
	if len(names) != 4 || names[0] != "ann" || names[1] != "bob" || names[2] != "carl" || names[3] != "dora" {
		t.Fatalf("droids %v; want ann bob carl dora", names)
	}
	silent := roster.Silent(list, now, 90*time.Minute)
	if len(silent) != 1 || silent[0].Name != "ann" {
		t.Fatalf("silent over 90m: %+v; want ann alone", silent)
	}
	if last, ok, err := lastSeen(s, now, "carl"); err != nil || !ok || !last.Equal(t0.Add(3*time.Hour)) {
		t.Fatalf("carl last seen %v %v %v", last, ok, err)
	}
	if _, ok, _ := lastSeen(s, now, "bob"); ok {
		t.Fatal("bob was never seen, yet LastSeen says he was")
	}
	// A droid whose records another droid changed since (a forced
	// release) was still seen when it created them.
	if _, err := (&reservations.Store{S: s.S}).Reserve(reservations.Request{Patterns: []string{"src/**"}, Droid: "dora", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	c.now = c.now.Add(time.Minute)
	if _, err := (&reservations.Store{S: s.S}).Change(reservations.ChangeRequest{By: "carl", Holder: "dora", All: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	if last, ok, err := lastSeen(s, c.now, "dora"); err != nil || !ok || !last.Equal(c.now.Add(-time.Minute)) {
		t.Fatalf("dora, whose reservation carl released: last seen %v %v %v; want when she reserved", last, ok, err)
	}
	// A version dated a little ahead (a clock within the tolerance) counts
	// as now; one further ahead is no sighting at all, or its droid would
	// be "seen just now" at every read until that time came.
	c.now = now.Add(3 * time.Minute)
	if _, err := s.Note("eve", roster.Place{Clone: "c", Worktree: "w"}); err != nil {
		t.Fatal(err)
	}
	if last, _, _ := lastSeen(s, now, "eve"); !last.Equal(now) {
		t.Fatalf("eve seen 3m in the future at %v; want bounded to %v", last, now)
	}
	c.now = now.Add(48 * time.Hour)
	if _, err := s.Note("fay", roster.Place{Clone: "c", Worktree: "w"}); err != nil {
		t.Fatal(err)
	}
	if last, ok, _ := lastSeen(s, now, "fay"); ok {
		t.Fatalf("fay, seen 48h in the future, counts as seen at %v; want not seen", last)
	}
	if last, ok, _ := lastSeen(s, c.now.Add(time.Minute), "fay"); !ok || !last.Equal(c.now) {
		t.Fatalf("fay once her time came: %v %v; want seen at %v", last, ok, c.now)
	}
}

// A sighting never waits long for the lock: while another process holds
// it, Note gives up with the lock's timeout and writes nothing.
func TestNoteGivesUpOnAHeldLock(t *testing.T) {
	s, _ := newStore(t)
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- s.S.Update(func(*jsonl.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	wrote, err := s.Note("ann", roster.Place{Clone: "c", Worktree: "w"})
	close(release)
	if herr := <-done; herr != nil {
		t.Fatal(herr)
	}
	var timeout *jsonl.LockTimeoutError
	if wrote || !errors.As(err, &timeout) {
		t.Fatalf("Note beside a held lock: wrote %v, %v; want a lock timeout", wrote, err)
	}
	if n := logLines(t, s); n != 0 {
		t.Fatalf("%d lines written", n)
	}
}

// The steal check counts the holder's last sighting and the time its claim
// was written, whichever is later, and refuses within the threshold,
// saying when a steal becomes possible.
func TestSilentCheck(t *testing.T) {
	s, c := newStore(t)
	if _, err := s.Note("ann", roster.Place{Clone: "c", Worktree: "w"}); err != nil { // ann seen at t0
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		now    time.Duration // after t0
		holder string
		held   time.Duration // when the claim was written, after t0; <0: never
		ok     bool
	}{
		{"seen 30m ago", 30 * time.Minute, "ann", -1, false},
		{"seen 61m ago", 61 * time.Minute, "ann", -1, true},
		{"seen 61m ago, claim renewed 10m ago", 61 * time.Minute, "ann", 51 * time.Minute, false},
		{"never seen, assigned to 30m ago", 30 * time.Minute, "bob", 0, false},
		{"never seen, assigned to 61m ago", 61 * time.Minute, "bob", 0, true},
		{"never seen, nothing known", 0, "bob", -1, true},
		{"a claim a little ahead (clocks drift) counts as now", 0, "bob", 3 * time.Minute, false},
		{"a claim from the far future is no sign of life", 0, "bob", 48 * time.Hour, true},
	}
	for _, tc := range cases {
		c.now = t0.Add(tc.now)
		var held time.Time
		if tc.held >= 0 {
			held = t0.Add(tc.held)
		}
		err := s.SilentCheck(time.Hour, "claim")(tc.holder, held)
		var seen *roster.NotSilentError
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case !tc.ok && !errors.As(err, &seen):
			t.Errorf("%s: %v; want a NotSilentError", tc.name, err)
		case !tc.ok && !strings.Contains(err.Error(), "nothing was stolen: "+tc.holder+" was last seen"):
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// A version from the far future, pushed by anyone with access to the
// remote or written once by a clone whose clock was wrong, must not keep
// its droid "seen just now" for ever: ann, who died at t0, is silent an
// hour later whatever a sighting dated 2099 says, so her paths may be
// stolen and doctor lists her. And ann, back, is seen again at her real
// time: her next sighting there is a new record, not a successor of the
// one from 2099 (whose versions could only be later still).
func TestAFarFutureSightingIsNoSignOfLife(t *testing.T) {
	s, c := newStore(t)
	here := roster.Place{Clone: "host:/repo/.git", Worktree: "/repo"}
	if _, err := s.Note("ann", here); err != nil { // ann's last real sighting, at t0
		t.Fatal(err)
	}
	list, err := s.Sightings()
	if err != nil || len(list) != 1 {
		t.Fatalf("sightings %v, %v", list, err)
	}
	// Her record's next version, dated 2099, in the same place, as a
	// received version would be; and a message of hers dated 2099.
	future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	raw, err := os.ReadFile(s.S.Log(records.MessagesFile).Path)
	if err != nil {
		t.Fatal(err)
	}
	next, err := jsonl.SetFields(bytes.TrimSpace(raw), jsonl.Field{Name: "updated_at", Value: future})
	if err != nil {
		t.Fatal(err)
	}
	c.now = future
	if _, err := (&messages.Store{S: s.S}).Send(messages.Draft{From: "ann", To: "bob", Subject: "from the future", NewRecipients: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.S.Update(func(tx *jsonl.Tx) error { return tx.Append(s.S.Log(records.MessagesFile), next) }); err != nil {
		t.Fatal(err)
	}

	c.now = t0.Add(61 * time.Minute)
	if err := s.SilentCheck(time.Hour, "reservation")("ann", t0); err != nil {
		t.Fatalf("ann, last really seen 61m ago: %v; want her stealable", err)
	}
	all, err := s.List(c.now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if silent := roster.Silent(all, c.now, time.Hour); len(silent) != 1 || silent[0].Name != "ann" || !silent[0].Last.Equal(t0) {
		t.Fatalf("silent over an hour: %+v; want ann, last seen at %s", silent, t0)
	}

	// Ann comes back: she is seen now, and no longer stealable.
	if wrote, err := s.Note("ann", here); err != nil || !wrote {
		t.Fatalf("ann back: wrote %v, %v", wrote, err)
	}
	if last, ok, err := lastSeen(s, c.now, "ann"); err != nil || !ok || !last.Equal(c.now) {
		t.Fatalf("ann back: last seen %v %v %v; want %s", last, ok, err, c.now)
	}
	if err := s.SilentCheck(time.Hour, "reservation")("ann", t0); err == nil {
		t.Fatal("ann, back just now, is stealable")
	}
}
