package hooks

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestShimsStopAtAChainedHooksSetE: a chained sh hook that stops at its
// first failing command (set -e) still fails the shim, whichever shell
// /bin/sh is (dash on Debian, bash on macOS and Fedora). Bash ignores set
// -e in a subshell on the left of || : sourced as `(. hook) || exit $?`,
// such a hook ran on past its failure and let the commit or push through.
// The hook's exit status is the shim's, as before it was chained.
func TestShimsStopAtAChainedHooksSetE(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the shims are run by sh")
	}
	var shells []string
	for _, sh := range []string{"sh", "bash", "dash"} {
		if p, err := exec.LookPath(sh); err == nil {
			shells = append(shells, p)
		}
	}
	if len(shells) == 0 {
		t.Skip("no sh on PATH")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git-queen"), []byte("#!/bin/sh\ncat >/dev/null\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, chained string
		want          int
	}{
		{"set -e", "#!/bin/sh\nset -e\nfalse\necho ran past its failure >&2\nexit 0\n", 1},
		{"exit status", "#!/bin/sh\nexit 3\n", 3},
		{"set -e, as a program", "#!/usr/bin/env bash\nset -e\nfalse\necho ran past its failure >&2\nexit 0\n", 1},
	}
	if _, err := exec.LookPath("bash"); err != nil {
		cases = cases[:2] // the program is a bash script
	}
	for _, sh := range shells {
		for _, name := range Names {
			for _, c := range cases {
				dir := t.TempDir()
				hook := filepath.Join(dir, name)
				if err := os.WriteFile(hook, Shim(name), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(hook+ChainedSuffix, []byte(c.chained), 0o755); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(sh, hook, "origin", "url")
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
				cmd.Stdin = strings.NewReader("refs/heads/main 1 refs/heads/main 0\n")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				var exit *exec.ExitError
				got := 0
				if errors.As(err, &exit) {
					got = exit.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if got != c.want || strings.Contains(stderr.String(), "ran past") {
					t.Errorf("%s %s, chained hook with %s: exit %d, want %d; stderr:\n%s", sh, name, c.name, got, c.want, stderr.String())
				}
			}
		}
	}
}

// TestShimsRunAChainedSymlinkAsTheFileItLeadsTo: a hook that was a
// symbolic link to a script of the hook's name (.git/hooks/pre-commit ->
// ../../tools/pre-commit), chained, still finds its own files through the
// link (readlink -f "$0") and still knows its name; one that leads to a
// script of another name (one dispatcher for every hook) still knows the
// hook's name. Sourced with the shim's $0, the first looked for its files
// in .git/hooks and failed every commit and push.
func TestShimsRunAChainedSymlinkAsTheFileItLeadsTo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the shims are run by sh")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git-queen"), []byte("#!/bin/sh\ncat >/dev/null\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range Names {
		for _, target := range []string{name, "dispatch"} {
			dir := t.TempDir()
			tools, hooksDir := filepath.Join(dir, "tools"), filepath.Join(dir, "hooks")
			for _, d := range []string{tools, hooksDir} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			script := "#!/bin/sh\n[ \"$(basename \"$0\")\" = " + name + " ] || { echo \"known as $0\" >&2; exit 7; }\n"
			if target == name {
				script += ". \"$(dirname \"$(readlink -f \"$0\")\")/lib.sh\" || exit 8\n"
			}
			if err := os.WriteFile(filepath.Join(tools, target), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tools, "lib.sh"), []byte("echo found lib.sh >&2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			hook := filepath.Join(hooksDir, name)
			if err := os.WriteFile(hook, Shim(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join("..", "tools", target), hook+ChainedSuffix); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", filepath.Join("hooks", name), "origin", "url")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			cmd.Stdin = strings.NewReader("refs/heads/main 1 refs/heads/main 0\n")
			out, err := cmd.CombinedOutput()
			if err != nil || (target == name) != strings.Contains(string(out), "found lib.sh") {
				t.Errorf("%s chained as a link to tools/%s: %v\n%s", name, target, err, out)
			}
		}
	}
}
