package gitrepo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestMayConvert: every way git converts a file on its way into the index
// is seen (so the hook hashes the file rather than trust its stat), and a
// file git stores as it is, is not; in process or, where the reader
// leaves it to git (a bracket pattern), through git.
func TestMayConvert(t *testing.T) {
	cases := []struct {
		name, attributes, file string
		config, env            [2]string
		want                   bool
	}{
		{name: "nothing", file: "a.jsonl"},
		{name: "another path's filter", attributes: "*.txt filter=lfs\n", file: "a.jsonl"},
		{name: "binary", attributes: "*.jsonl binary\n", file: "a.jsonl"},
		{name: "-text", attributes: "*.jsonl -text\n", file: "a.jsonl"},
		{name: "lfs filter", attributes: "*.jsonl filter=lfs diff=lfs merge=lfs -text\n", file: "a.jsonl", want: true},
		{name: "filter below", attributes: "d/** filter=x\n", file: "d/a.jsonl", want: true},
		{name: "eol=crlf", attributes: "*.jsonl text eol=crlf\n", file: "a.jsonl", want: true},
		{name: "text=auto", attributes: "* text=auto\n", file: "a.jsonl", want: true},
		{name: "ident", attributes: "*.jsonl ident\n", file: "a.jsonl", want: true},
		{name: "working-tree-encoding", attributes: "*.jsonl working-tree-encoding=UTF-16\n", file: "a.jsonl", want: true},
		{name: "a macro", attributes: "[attr]mine filter=x\n*.jsonl mine\n", file: "a.jsonl", want: true},
		{name: "core.autocrlf", file: "a.jsonl", config: [2]string{"core.autocrlf", "true"}, want: true},
		{name: "core.autocrlf input", file: "a.jsonl", config: [2]string{"core.autocrlf", "input"}, want: true},
		{name: "core.autocrlf false", file: "a.jsonl", config: [2]string{"core.autocrlf", "false"}},
		{name: "in a hook's index", attributes: "*.jsonl filter=x\n", file: "a.jsonl",
			env: [2]string{"GIT_INDEX_FILE", ".git/index"}, want: true},
		{name: "left to git, converts", attributes: "*.[j]sonl filter=x\n", file: "a.jsonl", want: true},
		{name: "left to git, does not", attributes: "*.[j]sonl -text\n", file: "a.jsonl"},
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
			if got := r.mayConvert(c.file); got != c.want {
				t.Errorf("mayConvert(%s) = %v, want %v", c.file, got, c.want)
			}
		})
	}
}
