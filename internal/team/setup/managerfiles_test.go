package setup

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestDoctorReadsNoHugeManagerFile: doctor read husky's script
// (.husky/NAME), as the hook that runs it and as the one to come, and
// the file a runner lefthook's hook tries names lefthook in (.pnp.cjs,
// go.mod, ...), up to 100 MB each, whole. It now reads no more of them
// than of a lefthook configuration, and says it cannot tell what a larger
// script runs; a larger runner file it takes as one that may name
// lefthook, as it does a runner it cannot judge.
func TestDoctorReadsNoHugeManagerFile(t *testing.T) {
	const size = 32 << 20 // see TestDoctorReadsNoHugeManagerConfiguration
	padded := func(text string) string { return text + strings.Repeat("# "+strings.Repeat("x", 97)+"\n", size/100) }
	husky := func(t *testing.T, r *Repo) {
		testgit.Write(t, r.TopLevel, ".husky/_/h", "#!/usr/bin/env sh\n")
		if err := os.Chmod(testgit.Write(t, r.TopLevel, ".husky/_/pre-commit", "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".husky/_")
	}
	for _, tt := range []struct {
		name  string
		setUp func(t *testing.T, r *Repo)
		file  string
		judge func(r *Repo) string // what doctor says
		says  string
	}{
		{"husky's script", husky, ".husky/pre-commit", func(r *Repo) string { return r.checkHook("pre-commit", Options{}).Message },
			"git runs husky's hook (.husky/_/pre-commit); doctor does not read .husky/pre-commit: it is larger than 256 KiB, " +
				"so it cannot tell whether husky's pre-commit hook runs git-queen's check"},
		{"husky's script to come", func(t *testing.T, r *Repo) {
			if _, err := r.InstallHookNamed("pre-commit", false, nil); err != nil {
				t.Fatal(err)
			}
		}, ".husky/pre-commit", func(r *Repo) string { return r.checkHook("pre-commit", Options{}).Message }, "git-queen's hook"},
		{"yarn's .pnp.cjs", func(t *testing.T, r *Repo) {
			hook(t, r, "pre-commit", strings.Replace(generatedHook("", ""), "  else\n", "  elif yarn lefthook -h >/dev/null 2>&1\n  then\n    yarn lefthook \"$@\"\n  else\n", 1))
			r.LookPath = func(name string) (string, error) {
				if name == "yarn" {
					return "/usr/bin/yarn", nil
				}
				return "", errors.New("not on PATH")
			}
		}, ".pnp.cjs", func(r *Repo) string {
			h := &Hook{Name: "pre-commit", Path: filepath.Join(r.GitDir, "hooks", "pre-commit"), Owner: OwnerLefthook}
			return r.lefthookNotFound(h, func(string) string { return "" })
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			tt.setUp(t, r)
			testgit.Write(t, r.TopLevel, tt.file, padded(TrackedLine("pre-commit")+"\n# lefthook\n"))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			says := tt.judge(r)
			runtime.ReadMemStats(&after)
			if !strings.Contains(says, tt.says) || tt.says == "" && says != "" {
				t.Fatalf("want %q: %q", tt.says, says)
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > size/2 {
				t.Fatalf("doctor allocated %d bytes for a file of %d", allocated, size)
			}
		})
	}
}
