package precommit

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/testgit"
)

// t0 is the fixed moment reservations are granted and judged at, so that
// no test depends on how long the machine takes to run it.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// fixture is a real repository with its live store, behind a fixed clock.
type fixture struct {
	repo string
	now  time.Time
	s    *store.Store
	// identityCalls counts how often the check asked who commits.
	identityCalls int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	testgit.Isolate(t)
	repo := testgit.Init(t)
	ws, err := workspace.Find(workspace.Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	// The live store exists, so logs committed in .beads/ are the old
	// layout's files being edited, not a store to import.
	if err := os.MkdirAll(ws.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fixture{repo: repo, now: t0}
	f.s = &store.Store{WS: ws, Clock: func() time.Time { return f.now }, NoSync: true}
	return f
}

// reserve grants a reservation at the fixture's clock.
func (f *fixture) reserve(t *testing.T, droid, pattern string, exclusive bool) {
	t.Helper()
	_, err := (&reservations.Store{S: f.s}).Reserve(reservations.Request{Patterns: []string{pattern}, Droid: droid, Exclusive: exclusive, Force: true})
	if err != nil {
		t.Fatal(err)
	}
}

// git runs git in the repository.
func (f *fixture) git(t *testing.T, args ...string) string {
	t.Helper()
	return testgit.Run(t, f.repo, args...)
}

// stage writes files and adds them to the index.
func (f *fixture) stage(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		testgit.Write(t, f.repo, name, content)
		f.git(t, "add", "--", name)
	}
}

// commit stages files and commits them, without hooks.
func (f *fixture) commit(t *testing.T, files map[string]string) {
	t.Helper()
	f.stage(t, files)
	f.git(t, "commit", "-q", "--no-verify", "-m", "fixture")
}

// run runs the check as droid me ("" for nobody).
func (f *fixture) run(t *testing.T, me string) *Result {
	t.Helper()
	repo, err := gitrepo.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Input{Repo: repo, Store: f.s, Registry: schema.DefaultRegistry(),
		Identity: func() string { f.identityCalls++; return me }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// msg is a valid message line of the old layout's committed log: id n,
// version v (a later updated_at).
func msg(n, v int) string {
	created := t0.Add(time.Duration(n) * time.Minute)
	updated := created.Add(time.Duration(v) * time.Second)
	m := records.Message{ID: fmt.Sprintf("qm-01JD%022d", n), CreatedAt: created, UpdatedAt: &updated,
		From: "ann", To: "bob", Subject: fmt.Sprintf("message %d", n), Importance: records.ImportanceNormal, Read: v > 0}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// lines joins log lines, each ended by a newline.
func lines(ls ...string) string {
	out := ""
	for _, l := range ls {
		out += l + "\n"
	}
	return out
}
