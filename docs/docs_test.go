//go:build !urfave_cli_no_docs

package docs_test

import (
	"flag"
	"os"
	"testing"

	"github.com/git-queen/git-queen/docs"
	"github.com/git-queen/git-queen/internal/front/commands"
)

var update = flag.Bool("update", false, "rewrite git-queen.1 from the command definitions")

// The committed man page is the one the command definitions give today: a
// flag or command added without `go generate ./docs` fails here.
func TestManPageIsCurrent(t *testing.T) {
	want, err := commands.ManApp().ToManWithSection(1)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("git-queen.1", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile("git-queen.1")
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != want {
		t.Fatal("docs/git-queen.1 is stale: run `go generate ./docs` (or go test ./docs -update) and commit it")
	}
	if docs.ManPage != want {
		t.Fatal("the embedded page differs from docs/git-queen.1: rebuild")
	}
}
