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
	shells, bin := shimShells(t)
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
				writeFile(t, filepath.Join(dir, name), string(Shim(name)))
				writeFile(t, filepath.Join(dir, name+ChainedSuffix), c.chained)
				got, stderr := runShim(t, sh, dir, name, bin)
				if got != c.want || strings.Contains(stderr, "ran past") {
					t.Errorf("%s %s, chained hook with %s: exit %d, want %d; stderr:\n%s", sh, name, c.name, got, c.want, stderr)
				}
			}
		}
	}
}

// TestShimsRunAChainedHookAsGitRanIt: a chained hook still sees itself as
// git showed it: a bash script that runs the scripts of its directory's
// NAME.d/ (basename "$0", dirname "$0") still runs them; run as a program
// it took itself for NAME.queen-chained, found no such directory and let
// every commit and push through; one that runs only when not sourced
// (BASH_SOURCE is $0) still runs. A symbolic link to a script of the hook's
// name (.git/hooks/pre-commit -> ../../tools/pre-commit) still finds its
// files through the link (readlink -f "$0"); sourced with the shim's $0, it
// looked for them beside the shim and failed every commit and push. A link
// to a script of another name (one dispatcher for every hook) still knows
// the hook's name.
func TestShimsRunAChainedHookAsGitRanIt(t *testing.T) {
	shells, bin := shimShells(t)
	knowsItsName := func(name string) string {
		return "[ \"$(basename \"$0\")\" = " + name + " ] || { echo \"known as $0\" >&2; exit 7; }\n"
	}
	for _, sh := range shells {
		for _, name := range Names {
			dir := t.TempDir()
			hooksDir, tools := filepath.Join(dir, "hooks"), filepath.Join(dir, "tools")
			writeFile(t, filepath.Join(hooksDir, name), string(Shim(name)))
			if _, err := exec.LookPath("bash"); err == nil {
				writeFile(t, filepath.Join(hooksDir, name+ChainedSuffix), "#!/usr/bin/env bash\n"+knowsItsName(name)+
					"for f in \"$(dirname \"$0\")/$(basename \"$0\").d\"/*; do [ -x \"$f\" ] || continue; \"$f\" || exit $?; done\n")
				writeFile(t, filepath.Join(hooksDir, name+".d", "lint"), "#!/bin/sh\necho lint refuses >&2\nexit 9\n")
				if got, stderr := runShim(t, sh, dir, filepath.Join("hooks", name), bin); got != 9 || !strings.Contains(stderr, "lint refuses") {
					t.Errorf("%s %s, chained bash hook that runs %s.d/: exit %d, want 9; stderr:\n%s", sh, name, name, got, stderr)
				}
				writeFile(t, filepath.Join(hooksDir, name+ChainedSuffix), "#!/bin/bash\nmain() { echo main ran >&2; exit 5; }\n"+
					"[[ \"${BASH_SOURCE[0]}\" == \"$0\" ]] && main \"$@\"\n")
				if got, stderr := runShim(t, sh, dir, filepath.Join("hooks", name), bin); got != 5 || !strings.Contains(stderr, "main ran") {
					t.Errorf("%s %s, chained bash hook that runs main when not sourced: exit %d, want 5; stderr:\n%s", sh, name, got, stderr)
				}
			}
			writeFile(t, filepath.Join(tools, "lib.sh"), "echo found lib.sh >&2\n")
			for _, target := range []string{name, "dispatch"} {
				script := "#!/bin/sh\n" + knowsItsName(name)
				if target == name {
					script += ". \"$(dirname \"$(readlink -f \"$0\")\")/lib.sh\" || exit 8\n"
				}
				writeFile(t, filepath.Join(tools, target), script)
				chained := filepath.Join(hooksDir, name+ChainedSuffix)
				if err := os.Remove(chained); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join("..", "tools", target), chained); err != nil {
					t.Fatal(err)
				}
				got, stderr := runShim(t, sh, dir, filepath.Join("hooks", name), bin)
				if got != 0 || (target == name) != strings.Contains(stderr, "found lib.sh") {
					t.Errorf("%s %s, chained as a link to tools/%s: exit %d; stderr:\n%s", sh, name, target, got, stderr)
				}
			}
		}
	}
}

// shimShells are the shells on PATH that run the shims (sh, and bash and
// dash where there are), and a directory with a git-queen that lets
// everything through.
func shimShells(t *testing.T) (shells []string, bin string) {
	if runtime.GOOS == "windows" {
		t.Skip("the shims are run by sh")
	}
	for _, sh := range []string{"sh", "bash", "dash"} {
		if p, err := exec.LookPath(sh); err == nil {
			shells = append(shells, p)
		}
	}
	if len(shells) == 0 {
		t.Skip("no sh on PATH")
	}
	bin = t.TempDir()
	writeFile(t, filepath.Join(bin, "git-queen"), "#!/bin/sh\ncat >/dev/null\nexit 0\n")
	return shells, bin
}

// runShim runs the shim at rel in dir with sh, as git runs pre-push (with
// a remote's name and URL, and a ref on stdin), and returns its exit
// status and standard error.
func runShim(t *testing.T, sh, dir, rel, bin string) (int, string) {
	cmd := exec.Command(sh, rel, "origin", "url")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader("refs/heads/main 1 refs/heads/main 0\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// writeFile writes an executable file, and the directories it is in.
func writeFile(t *testing.T, path, data string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
		t.Fatal(err)
	}
}
