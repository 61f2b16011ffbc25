package app

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
	"github.com/git-queen/git-queen/merge"
)

// The driver writes the merge over ours with ours' mode, by the queen-format
// attribute, and leaves nothing in the git directory: neither its
// temporary file nor ours, which it moves aside while the result takes its
// name.
func TestMergeDriverReplacesOursAndLeavesNothing(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Write(t, repo, ".gitattributes", "*.log queen-format=lines\n")
	base := testgit.Write(t, repo, ".merge_file_base", "a\n")
	ours := testgit.Write(t, repo, ".merge_file_ours", "a\nours\n")
	theirs := testgit.Write(t, repo, ".merge_file_theirs", "a\ntheirs\n")
	if err := os.Chmod(ours, 0o600); err != nil {
		t.Fatal(err)
	}
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard}
	res, err := MergeDriver.Run(e, MergeRequest{Base: filepath.Base(base), Ours: filepath.Base(ours), Theirs: filepath.Base(theirs),
		MarkerSize: 7, Path: "x.log"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != merge.Lines {
		t.Errorf("merged as %s, want lines (the attribute)", res.Format)
	}
	got, err := os.ReadFile(ours)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(got); !strings.Contains(s, "ours\n") || !strings.Contains(s, "theirs\n") {
		t.Errorf("ours after the merge: %q, want both sides", s)
	}
	if info, err := os.Stat(ours); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("ours' mode after the merge: %v, %v; want 0600", info.Mode().Perm(), err)
	}
	entries, err := os.ReadDir(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range entries {
		if strings.HasPrefix(entry.Name(), "queen-merge-") {
			t.Errorf("left in the git directory: %s", entry.Name())
		}
	}
}

// A queen-format attribute that names no format (a typo) is warned about,
// and the file merged as detected: the driver refused it, and git showed a
// conflict over a file that held ours alone, without markers, so whoever
// staged it lost theirs.
func TestMergeDriverMergesPastAMistypedFormatAttribute(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Write(t, repo, ".gitattributes", "*.jsonl queen-format=snapshots\n")
	base := testgit.Write(t, repo, ".merge_file_base", `{"id":"a"}`+"\n")
	ours := testgit.Write(t, repo, ".merge_file_ours", `{"id":"a"}`+"\n"+`{"id":"ours"}`+"\n")
	theirs := testgit.Write(t, repo, ".merge_file_theirs", `{"id":"a"}`+"\n"+`{"id":"theirs"}`+"\n")
	var warned strings.Builder
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: &warned}
	res, err := MergeDriver.Run(e, MergeRequest{Base: filepath.Base(base), Ours: filepath.Base(ours), Theirs: filepath.Base(theirs),
		MarkerSize: 7, Path: "log.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != merge.Lines {
		t.Errorf("merged as %s, want lines (detected)", res.Format)
	}
	if got, _ := os.ReadFile(ours); string(got) != `{"id":"a"}`+"\n"+`{"id":"ours"}`+"\n"+`{"id":"theirs"}`+"\n" {
		t.Errorf("ours after the merge: %q, want both sides", got)
	}
	if w := warned.String(); !strings.Contains(w, `"snapshots"`) || !strings.Contains(w, ".gitattributes") {
		t.Errorf("warning %q does not name the attribute's value and where to correct it", w)
	}
}

// Line ends merge as a change does: the side that changed them from the
// base wins, so both directions of a merge agree.
func TestCRLFResult(t *testing.T) {
	const none, lf, crlf = "{}", "{}\n", "{}\r\n"
	for _, c := range []struct {
		name               string
		base, ours, theirs string
		want               bool
	}{
		{"nobody changed CRLF", crlf, crlf, crlf, true},
		{"nobody changed LF", lf, lf, lf, false},
		{"theirs turned CRLF into LF", crlf, crlf, lf, false},
		{"ours turned CRLF into LF", crlf, lf, crlf, false},
		{"theirs turned LF into CRLF", lf, lf, crlf, true},
		{"ours turned LF into CRLF", lf, crlf, lf, true},
		{"both turned CRLF into LF", crlf, lf, lf, false},
		{"no base, both CRLF", none, crlf, crlf, true},
		{"no base, the sides differ: LF", none, crlf, lf, false},
		{"no base, the sides differ the other way: LF", none, lf, crlf, false},
		{"ours has no line end: theirs", crlf, none, crlf, true},
		{"theirs has no line end: ours", lf, crlf, none, true},
		{"no line ends anywhere", none, none, none, false},
	} {
		if got := crlfResult([]byte(c.base), []byte(c.ours), []byte(c.theirs)); got != c.want {
			t.Errorf("%s: crlfResult = %v, want %v", c.name, got, c.want)
		}
	}
}
