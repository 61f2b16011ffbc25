package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// generatedHook is the shape of the hook lefthook 2 install writes (its
// ways of finding lefthook cut to four), with rc the line its rc: option
// adds ("" without) and installed the lefthook install ran, which the
// hook looks for, quoted as lefthook quotes it ("" for none).
func generatedHook(rc, installed string) string {
	if installed != "" {
		installed = "  elif '" + installed + "' -h >/dev/null 2>&1\n  then\n    '" + installed + "' \"$@\"\n"
	}
	return "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then\n  exit 0\nfi\n" + rc + `
call_lefthook()
{
  if test -n "$LEFTHOOK_BIN"
  then
    "$LEFTHOOK_BIN" "$@"
  elif lefthook -h >/dev/null 2>&1
  then
    lefthook "$@"
` + installed + `  else
    dir="$(git rev-parse --show-toplevel)"
    osArch=$(uname | tr '[:upper:]' '[:lower:]')
    cpuArch=$(uname -m | sed 's/aarch64/arm64/;s/x86_64/x64/')
    if test -f "$dir/node_modules/lefthook-${osArch}-${cpuArch}/bin/lefthook"
    then
      "$dir/node_modules/lefthook-${osArch}-${cpuArch}/bin/lefthook" "$@"
    else
      echo "Can't find lefthook in PATH"
    fi
  fi
}

call_lefthook run "pre-commit" "$@"
`
}

// TestLefthookNotFoundLooksWhereTheHookLooks: doctor warns that lefthook's
// hook finds no lefthook only where the hook's own search would fail; a
// healthy clone is not warned of. None of these has lefthook on PATH.
func TestLefthookNotFoundLooksWhereTheHookLooks(t *testing.T) {
	const rcLine = "[ -f ./.lefthookrc ] && . ./.lefthookrc\n"
	for _, tt := range []struct {
		name, dir string // dir: the clone's directory, in a temporary one
		rc        string // the rc: line of the hook
		installed string // where lefthook install found lefthook, in the temporary directory
		files     []string
		warned    bool
	}{
		{"nothing anywhere", "repo", "", "", nil, true},
		{"lefthook in node_modules/", "repo", "", "", []string{"node_modules/lefthook-linux-x64/bin/lefthook"}, false},
		{"lefthook in node_modules/ of a clone whose path has glob characters", "team[1]/repo*", "", "",
			[]string{"node_modules/lefthook-linux-x64/bin/lefthook"}, false},
		{"no lefthook in a clone whose path has glob characters", "team[1]/repo*", "", "", nil, true},
		{"an rc file, which may set PATH", "repo", rcLine, "", []string{".lefthookrc"}, false},
		{"an rc file the clone lacks", "repo", rcLine, "", nil, true},
		{"lefthook where lefthook install found it, in a path with a space", "repo", "", "tools dir/lefthook",
			[]string{"../tools dir/lefthook"}, false},
		{"lefthook install's path with a space, gone", "repo", "", "tools dir/lefthook", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			testgit.Isolate(t)
			top := filepath.Join(testgit.TempDir(t), tt.dir)
			if err := os.MkdirAll(top, 0o755); err != nil {
				t.Fatal(err)
			}
			testgit.Run(t, top, "init", "-q")
			r, err := NewRepo(top)
			if err != nil {
				t.Fatal(err)
			}
			r.LookPath = func(string) (string, error) { return "", errors.New("not on PATH") }
			for _, f := range tt.files {
				if err := os.Chmod(testgit.Write(t, top, f, "#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			installed := ""
			if tt.installed != "" {
				installed = filepath.Join(filepath.Dir(top), tt.installed)
			}
			hook(t, r, "pre-commit", generatedHook(tt.rc, installed))
			h := &Hook{Name: "pre-commit", Path: filepath.Join(r.GitDir, "hooks", "pre-commit"), Owner: OwnerLefthook}
			msg := r.lefthookNotFound(h, func(string) string { return "" })
			if warned := strings.Contains(msg, "finds no lefthook here"); warned != tt.warned {
				t.Fatalf("warned %v, want %v: %q", warned, tt.warned, msg)
			}
		})
	}
}
