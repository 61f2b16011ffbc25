package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// TestExportRefusesTargetsInTheStore holds the export away from the live
// store's own files, however the target reaches them: an export there
// would append other clones' records to this clone's log.
func TestExportRefusesTargetsInTheStore(t *testing.T) {
	name := records.MessagesFile
	// Records the export writes (records.CheckVersion).
	b1, a2 := message(2, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), "b1"), message(1, time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), "a2")
	cases := []struct {
		name   string
		target func(t *testing.T, s *Store) string // the export's DIR
		refuse string                              // "" when the export must work
	}{
		{"a plain directory", func(t *testing.T, s *Store) string { return t.TempDir() }, ""},
		{"a file linked to the live log", func(t *testing.T, s *Store) string {
			dir := t.TempDir()
			link(t, s.WS.Path(name), filepath.Join(dir, name))
			return dir
		}, "in the live store"},
		{"a directory linked to the store", func(t *testing.T, s *Store) string {
			dir := filepath.Join(t.TempDir(), "beads")
			link(t, s.WS.Dir, dir)
			return dir
		}, "in the live store"},
		{"a file linked into received/", func(t *testing.T, s *Store) string {
			dir := t.TempDir()
			link(t, filepath.Join(s.WS.Dir, ReceivedDir, name), filepath.Join(dir, name))
			return dir
		}, "in the live store"},
		{"a link to nothing", func(t *testing.T, s *Store) string {
			dir := t.TempDir()
			link(t, filepath.Join(t.TempDir(), "gone", name), filepath.Join(dir, name))
			return dir
		}, "symbolic link to nothing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := liveStore(t)
			write(t, s.WS.Path(name), b1)
			write(t, filepath.Join(s.WS.Dir, ReceivedDir, name), a2)
			live, _ := os.ReadFile(s.WS.Path(name))
			received, _ := os.ReadFile(filepath.Join(s.WS.Dir, ReceivedDir, name))
			dir := c.target(t, s)
			stats, err := s.Export(dir, []string{name})
			if c.refuse == "" {
				if err != nil || len(stats) != 1 || stats[0].Records != 2 {
					t.Fatalf("export: %v, %+v; want 2 records exported", err, stats)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.refuse) {
				t.Fatalf("export into %s: err %v, want one saying %q", dir, err, c.refuse)
			}
			if now, _ := os.ReadFile(s.WS.Path(name)); string(now) != string(live) {
				t.Errorf("the live log changed:\n%s", now)
			}
			if now, _ := os.ReadFile(filepath.Join(s.WS.Dir, ReceivedDir, name)); string(now) != string(received) {
				t.Errorf("the received log changed:\n%s", now)
			}
		})
	}
}

func link(t *testing.T, to, at string) {
	t.Helper()
	if err := os.Symlink(to, at); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}
