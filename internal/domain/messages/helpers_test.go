package messages

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/testgit"
)

// t0 is the fixed moment the tests start at; the clock only moves when a
// test moves it, so order by time never depends on the machine's speed.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) advance(d time.Duration) { c.now = c.now.Add(d) }

type fixture struct {
	clock *clock
	m     *Store
}

// newFixture is a real repository's live store behind a fixed clock.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	testgit.Isolate(t)
	ws, err := workspace.Find(workspace.Options{Dir: testgit.Init(t)})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{now: t0}
	return &fixture{clock: c, m: &Store{S: &store.Store{WS: ws, Clock: c.Now, NoSync: true}}}
}

// send sends one message a minute after the previous one and returns it.
func (f *fixture) send(t *testing.T, d Draft) records.Message {
	t.Helper()
	f.clock.advance(time.Minute)
	sent, err := f.m.Send(d)
	if err != nil {
		t.Fatalf("send %+v: %v", d, err)
	}
	if len(sent) != 1 {
		t.Fatalf("send %+v: %d copies", d, len(sent))
	}
	return sent[0]
}

func (f *fixture) logPath() string { return f.m.S.Log(records.MessagesFile).Path }

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func subjects(msgs []records.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Subject)
	}
	return out
}
