package reservations

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// Holds decodes only what holds a path; it must find exactly what decoding
// every line and filtering would find, including for lines spelled in
// ways the field scanner leaves to the decoder.
func TestHoldsAgreeWithDecodingEverything(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	lines := []string{
		`{"id":"qr-01","created_at":"2026-11-22T11:00:00Z","expires_at":"2026-11-22T13:00:00Z","pattern":"src/api/**","droid":"ann","status":"active","exclusive":true}`,
		`{"id":"qr-02","created_at":"2026-11-22T11:00:00Z","expires_at":"2026-11-22T13:00:00Z","pattern":"src/*.go","droid":"bob","status":"active","exclusive":true}`,
		`{"id":"qr-03","created_at":"2026-11-22T11:00:00Z","expires_at":"2026-11-22T13:00:00Z","pattern":"**/*.md","droid":"cat","status":"active","exclusive":false}`,
		`{"id":"qr-04","created_at":"2026-11-22T09:00:00Z","expires_at":"2026-11-22T11:00:00Z","pattern":"docs/**","droid":"cat","status":"active","exclusive":true}`,
		`{"id":"qr-05","created_at":"2026-11-22T11:00:00Z","expires_at":"2026-11-22T13:00:00Z","pattern":"lib/**","droid":"dan","status":"active","exclusive":true}`,
		`{"id":"qr-05","created_at":"2026-11-22T11:00:00Z","expires_at":"2026-11-22T13:00:00Z","released_at":"2026-11-22T11:30:00Z","pattern":"lib/**","droid":"dan","status":"released","exclusive":true}`,
		`{"id":"qr-06","created_at":"2026-11-22T11:00:00Z","expires_at":"2026-11-22T13:00:00Z","pattern":"lib\/x\u002ego","droid":"d\u0061n","status":"active","exclusive":true}`,
		`{"id":"qr-07","created_at":"2026-11-22T11:00:00Z","expires_at":"2026-11-22T13:00:00Z","pattern":"README","droid":"eve","status":"active","exclusive":true,"extra":{"nested":[1,2]}}`,
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, records.ReservationsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Store{S: &store.Store{WS: &workspace.Workspace{Dir: dir, BeadsDir: dir}, Clock: func() time.Time { return now }}}
	x, err := s.ExclusivesAt(now)
	if err != nil {
		t.Fatal(err)
	}
	latest := map[string]records.Reservation{}
	for _, l := range lines {
		var r records.Reservation
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		latest[r.ID] = r
	}
	paths := []string{"src/api/h.go", "src/main.go", "docs/a.md", "lib/y", "lib/x.go", "README", "other"}
	for _, me := range []string{"", "ann", "bob", "dan"} {
		var want []string
		for _, p := range paths {
			for _, r := range latest {
				if r.ActiveAt(now) && r.Exclusive && (me == "" || r.Droid != me) && Match(r.Pattern, p) {
					want = append(want, p+" "+r.ID)
				}
			}
		}
		var got []string
		for _, h := range x.Holds(me, paths) {
			got = append(got, h.Path+" "+h.Reservation.ID)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("me=%q: holds %v, want %v", me, got, want)
		}
		if me == "" && len(want) < 4 {
			t.Errorf("the fixture proves little: %v", want)
		}
	}
}
