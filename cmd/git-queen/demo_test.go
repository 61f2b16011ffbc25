package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// machineEnv is the environment the test binary started with, before
// TestMain isolated git from the machine: demo.sh builds git-queen with
// Go's caches in the real HOME, then isolates itself.
var machineEnv = os.Environ()

// TestDemo runs the README's first command, scripts/demo.sh, as a newcomer
// would, and checks that it shows what it promises: a reservation that
// holds in another worktree (through git stash too) and on another machine,
// messages carried by sync, a worktree left clean, and a merge of tracked
// JSONL without conflicts.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds git-queen and runs a whole scenario")
	}
	t.Parallel()
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", script)
	cmd.Env = append(machineEnv, "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("demo failed: %v\n%s", err, text)
	}
	for _, want := range []string{
		`commit refused: 1 staged path\(s\) reserved by other droids`,
		`src/api/handler.go: reserved exclusively by ann`,
		`git stash -q\nbob\$ git queen check src/api/handler.go\nsrc/api/handler.go: held exclusively by ann`,
		`src/\*\* overlaps src/api/\*\* held by ann`,
		`synced with origin: sent nothing; received 1 message \(ledger`,
		`released src/api/\*\*`,
		`reserved src/\*\* \(exclusive.*\n(.*\n)?published to origin`,
		`git status --porcelain\n\(nothing to commit\)`,
		`"status":"in_progress","priority":1`,
		`Done: the repository and its clones were in`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("demo output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "CONFLICT") {
		t.Errorf("the demo's merge conflicted:\n%s", text)
	}
}
