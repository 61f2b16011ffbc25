package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The note beside a lock names the holder's command line, for a waiter's
// message; a URL's password in it (git queen sync https://u:TOKEN@host/)
// is left out, and the rest kept.
func TestTheHolderNoteLeavesOutAURLPassword(t *testing.T) {
	saved := os.Args
	t.Cleanup(func() { os.Args = saved })
	os.Args = []string{"git-queen", "sync", "https://ci:s3cret@example.com/team.git", "--reason", "a:b@c", "ssh://git:pw@host:22/x",
		"--remote=https://bot:p@ss@word@example.org/y"} // a password with raw '@'s, after an option's '='
	path := filepath.Join(t.TempDir(), "queen.lock")
	var note string
	if err := (&Lock{Path: path}).Do(func(*Tx) error {
		note = readHolder(path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"https://ci@example.com/team.git", "--reason a:b@c", "ssh://git@host:22/x", "--remote=https://bot@example.org/y"} {
		if !strings.Contains(note, want) {
			t.Errorf("the holder's note %q does not name %q", note, want)
		}
	}
	if strings.Contains(note, "s3cret") || strings.Contains(note, ":pw@") || strings.Contains(note, "word") || strings.Contains(note, "ss@") {
		t.Errorf("the holder's note names a password: %q", note)
	}
}
