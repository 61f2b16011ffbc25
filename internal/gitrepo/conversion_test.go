package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestConversionOf: every way git converts a file on its way into the
// index is seen (so the hook does not take the file for the blob on its
// stat alone), line ends apart from the rest, and a file git stores as it
// is, is not; in process or, where the reader leaves it to git (a bracket
// pattern), through git.
func TestConversionOf(t *testing.T) {
	const (
		none  = convertsNothing
		eol   = convertsLineEnds
		other = convertsOther
	)
	cases := []struct {
		name, attributes, file string
		config, env            [2]string
		want                   conversion
	}{
		{name: "nothing", file: "a.jsonl", want: none},
		{name: "another path's filter", attributes: "*.txt filter=lfs\n", file: "a.jsonl"},
		{name: "binary", attributes: "*.jsonl binary\n", file: "a.jsonl"},
		{name: "-text", attributes: "*.jsonl -text\n", file: "a.jsonl"},
		{name: "lfs filter", attributes: "*.jsonl filter=lfs diff=lfs merge=lfs -text\n", file: "a.jsonl", want: other},
		{name: "filter below", attributes: "d/** filter=x\n", file: "d/a.jsonl", want: other},
		{name: "eol=crlf", attributes: "*.jsonl text eol=crlf\n", file: "a.jsonl", want: eol},
		{name: "text=auto", attributes: "* text=auto\n", file: "a.jsonl", want: eol},
		{name: "ident", attributes: "*.jsonl ident\n", file: "a.jsonl", want: other},
		{name: "working-tree-encoding", attributes: "*.jsonl working-tree-encoding=UTF-16\n", file: "a.jsonl", want: other},
		{name: "a macro", attributes: "[attr]mine filter=x\n*.jsonl mine\n", file: "a.jsonl", want: other},
		{name: "core.autocrlf", file: "a.jsonl", config: [2]string{"core.autocrlf", "true"}, want: eol},
		{name: "core.autocrlf input", file: "a.jsonl", config: [2]string{"core.autocrlf", "input"}, want: eol},
		{name: "core.autocrlf false", file: "a.jsonl", config: [2]string{"core.autocrlf", "false"}, want: none},
		{name: "in a hook's index", attributes: "*.jsonl filter=x\n", file: "a.jsonl",
			env: [2]string{"GIT_INDEX_FILE", ".git/index"}, want: other},
		{name: "left to git, converts", attributes: "*.[j]sonl filter=x\n", file: "a.jsonl", want: other},
		{name: "left to git, does not", attributes: "*.[j]sonl -text\n", file: "a.jsonl"},
		{name: "left to git, line ends", attributes: "*.[j]sonl text\n", file: "a.jsonl", want: eol},
		{name: "line ends and a filter", attributes: "* text=auto\n*.jsonl filter=x\n", file: "a.jsonl", want: other},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testgit.Isolate(t)
			dir := testgit.Init(t)
			if c.attributes != "" {
				testgit.Write(t, dir, ".gitattributes", c.attributes)
			}
			if c.config[0] != "" {
				testgit.Run(t, dir, "config", c.config[0], c.config[1])
			}
			if c.env[0] != "" {
				t.Setenv(c.env[0], c.env[1])
			}
			os.MkdirAll(filepath.Join(dir, "d"), 0o755)
			r, err := Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.conversionOf(c.file); got != c.want {
				t.Errorf("conversionOf(%s) = %v, want %v", c.file, got, c.want)
			}
		})
	}
}

// TestStagedFileUnderLineEnds: where git converts line ends (here
// text=auto, which many repositories set for every path), a worktree file
// whose stat matches the index is taken for the staged blob only when the
// blob is as long: a file git stored unchanged is still mapped, not
// hashed, and one whose CRLF git stored as LF is read from the blob.
func TestStagedFileUnderLineEnds(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Write(t, repo, ".gitattributes", "* text=auto\n")
	testgit.Run(t, repo, "add", ".gitattributes")
	testgit.Run(t, repo, "commit", "-q", "-m", "attributes")
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		name, text, staged string
		trusted            bool
	}{
		{"LF", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", true},
		{"CRLF", "{\"id\":\"a\"}\r\n{\"id\":\"b\"}\r\n", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := testgit.Write(t, repo, "log.jsonl", c.text)
			// An hour old: a stat git and the hook trust, not a racy one.
			old := time.Now().Add(-time.Duration(i+1) * time.Hour)
			os.Chtimes(path, old, old)
			testgit.Run(t, repo, "add", "log.jsonl")
			changes, err := r.Staged()
			if err != nil || len(changes) != 1 || changes[0].stat == nil {
				t.Fatalf("%v %v", changes, err)
			}
			content := r.OpenContent()
			defer content.Close()
			data, release, file, err := content.StagedFile(changes[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			if string(data) != c.staged {
				t.Errorf("read %q as the staged blob, which holds %q", data, c.staged)
			}
			if trusted := file != nil; trusted != c.trusted {
				t.Errorf("the worktree file's stat trusted: %v, want %v", trusted, c.trusted)
			}
		})
	}
}
