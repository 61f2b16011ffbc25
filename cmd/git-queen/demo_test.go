package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDemo runs the README's first command, scripts/demo.sh, as a newcomer
// would, and checks that it shows what it promises: a refused commit, the
// messages, and a merge of both branches' logs with no duplicate lines.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds git-queen and runs a whole scenario")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", script)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("demo failed: %v\n%s", err, text)
	}
	for _, want := range []string{
		`commit refused: 1 staged path\(s\) reserved by other droids`,
		`src/api/handler.go: reserved exclusively by ann`,
		`handler tweak`,
		`released src/api/\*\*`,
		`queen_messages.jsonl: \d+ lines, 0 duplicates`,
		`queen_reservations.jsonl: \d+ lines, 0 duplicates`,
		`Done: the repository was`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("demo output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "CONFLICT") {
		t.Errorf("the demo's merge conflicted:\n%s", text)
	}
}
