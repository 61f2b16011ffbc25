package app_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/testgit"
)

// Export writes into .beads at the worktree's top by default and into a
// directory named from Env.Dir otherwise; it refuses the store's own
// directory, and, with no worktree to default to, asks for one.
func TestExportDirectory(t *testing.T) {
	testgit.Isolate(t)
	top := testgit.Init(t)
	sub := filepath.Join(top, "src")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	queen(t, top, "--droid", "ann", "msg", "send", "--to", "ann", "--subject", "s", "--body", "b")
	for _, tt := range []struct {
		name, dir, wrote, refused string
	}{
		{name: "the worktree's .beads by default, from a subdirectory", wrote: filepath.Join(top, ".beads")},
		{name: "a relative directory from Env.Dir", dir: "out", wrote: filepath.Join(sub, "out")},
		{name: "the store itself", dir: filepath.Join(top, ".git", "queen"), refused: "is the store itself"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stats, err := app.Export(env(sub, "ann"), tt.dir)
			if tt.refused != "" {
				var usage *app.UsageError
				if !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("err %v, want a usage error saying %q", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(stats) == 0 {
				t.Fatal("no file exported")
			}
			for _, st := range stats {
				if filepath.Dir(st.File) != tt.wrote {
					t.Errorf("wrote %s, want it in %s", st.File, tt.wrote)
				}
				if _, err := os.Stat(st.File); st.Records > 0 && err != nil {
					t.Error(err)
				}
			}
		})
	}
	t.Run("no worktree to default to", func(t *testing.T) {
		store := t.TempDir()
		e := env(t.TempDir(), "ann")
		e.BeadsDir = store
		_, err := app.Export(e, "")
		var usage *app.UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), "no worktree here") {
			t.Fatalf("err %v, want a usage error asking for DIR", err)
		}
	})
}
