package reservations

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/testgit"
)

// t0 is the fixed moment the tests start at: no test reads the machine's
// clock, so none depends on how fast it runs.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// clock is a settable time source for a store.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) advance(d time.Duration) { c.now = c.now.Add(d) }

// fixture is a real repository with its live store, read and written
// through a fixed clock.
type fixture struct {
	repo  string
	clock *clock
	res   *Store
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	testgit.Isolate(t)
	repo := testgit.Init(t)
	ws, err := workspace.Find(workspace.Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	if !ws.Live {
		t.Fatalf("the store of a fresh repository is %s, not the live store", ws.Dir)
	}
	c := &clock{now: t0}
	return &fixture{repo: repo, clock: c, res: &Store{S: &store.Store{WS: ws, Clock: c.Now, NoSync: true}}}
}

// logPath is this clone's reservations log.
func (f *fixture) logPath() string { return f.res.S.Log(records.ReservationsFile).Path }

// writeLog replaces a log with raw content (bad input, hand-written lines).
func writeLog(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// boundFull is records.MaxActiveReservations distinct patterns: as many
// as the repository holds at once, reservations or places in line.
func boundFull() []string {
	many := make([]string, records.MaxActiveReservations)
	for i := range many {
		many[i] = fmt.Sprintf("d%d/**", i)
	}
	return many
}

// reserve asks for one pattern and fails the test on any error.
func (f *fixture) reserve(t *testing.T, droid, pattern string, exclusive bool) records.Reservation {
	t.Helper()
	res, err := f.res.Reserve(Request{Patterns: []string{pattern}, Droid: droid, Exclusive: exclusive})
	if err != nil {
		t.Fatalf("%s reserves %s: %v", droid, pattern, err)
	}
	if len(res.Granted) != 1 {
		t.Fatalf("%s reserves %s: granted %d", droid, pattern, len(res.Granted))
	}
	return res.Granted[0]
}

// activePatterns lists "droid:pattern" of what is active now.
func (f *fixture) activePatterns(t *testing.T) []string {
	t.Helper()
	live, err := f.res.Active(f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range live {
		out = append(out, l.Droid+":"+l.Pattern)
	}
	return out
}

// line is a reservation line as another writer (or a person) would put it
// in the log.
func line(id, droid, pattern, status string, exclusive bool, created, updated, expires time.Time) string {
	ex := "false"
	if exclusive {
		ex = "true"
	}
	return `{"id":"` + id + `","created_at":"` + created.Format(time.RFC3339Nano) + `","updated_at":"` +
		updated.Format(time.RFC3339Nano) + `","expires_at":"` + expires.Format(time.RFC3339Nano) +
		`","pattern":"` + pattern + `","droid":"` + droid + `","status":"` + status + `","exclusive":` + ex + `}`
}

func joinLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
