package setup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestYAMLKeyTwice: lefthook refuses a YAML configuration that holds a key
// twice in one mapping (lefthook dump: "couldn't load config: yaml:
// unmarshal errors: line 5: mapping key "q" already defined at line 3"),
// so every commit failed while doctor said ok. The same key in two
// mappings (two commands, two list items), or in a block scalar's text,
// is no duplicate (lefthook dump shows each row so).
func TestYAMLKeyTwice(t *testing.T) {
	// lefthookParse reads YAML with lefthook's parser, which says so.
	for _, tt := range []struct{ name, text, twice string }{
		{"a command twice", "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n    q:\n      run: echo\n",
			`line 5: mapping key "q" already defined at line 3`},
		{"a hook twice", "pre-commit:\n  parallel: true\npre-push:\n  parallel: true\n\"pre-commit\":\n  parallel: false\n",
			`line 5: mapping key "pre-commit" already defined at line 1`},
		{"run: twice in a job", "pre-commit:\n  jobs:\n  - name: q\n    run: git-queen hook pre-commit\n    run: echo # again\n",
			`line 5: mapping key "run" already defined at line 4`},
		{"a key again after a deeper mapping", "pre-commit:\n  commands:\n    q:\n      run: echo\n  commands:\n    r:\n      run: echo\n",
			`line 5: mapping key "commands" already defined at line 2`},
		{"a key twice, once with a space before its colon", "pre-commit:\n  parallel: true\npre-commit :\n  piped: true\n",
			`line 3: mapping key "pre-commit" already defined at line 1`},
		{"the same keys in two commands", "pre-commit:\n  commands:\n    q:\n      run: echo\n      skip: true\n    lint:\n      run: echo\n      skip: true\n", ""},
		{"the same keys in two list items", "pre-commit:\n  jobs:\n  - name: a\n    run: echo\n  -   name: b\n      run: echo\n  - run: echo\n", ""},
		{"the same keys in two list items, each dash alone on its line", "pre-commit:\n  jobs:\n    -\n      name: a\n      run: echo\n    -\n      name: b\n      run: echo\n", ""},
		{"a key twice in a list item whose dash is alone", "pre-commit:\n  jobs:\n    -\n      name: a\n      name: b\n", `line 5: mapping key "name" already defined at line 4`},
		// A flow collection or a quoted scalar may go on over lines: they
		// hold no keys of a block mapping (lefthook dump loads each).
		{"a flow list of mappings over lines", "pre-commit:\n  skip: [\n    {ref: main},\n    {ref: dev}\n  ]\n", ""},
		{"flow mappings over lines as list items", "pre-commit:\n  jobs:\n    - {name: a,\n       run: echo}\n    - {name: b,\n       run: echo}\n", ""},
		{"a double-quoted value over lines", "pre-commit:\n  commands:\n    lint:\n      run: \"echo \\\"a\n        b: c\n        b: d\"\n", ""},
		{"a single-quoted value over lines, a quote in it", "pre-commit:\n  commands:\n    lint:\n      run: 'it''s\n        b: c\n        b: d'\n      run: x\n",
			`line 7: mapping key "run" already defined at line 4`},
		{"a key twice after a flow mapping over lines", "pre-commit:\n  commands:\n    lint:\n      env: {\n        A: b }\n      env: {A: c}\n",
			`line 6: mapping key "env" already defined at line 4`},
		{"a quote inside a plain value", "pre-commit:\n  commands:\n    lint:\n      run: echo it's\n      run: x\n", `line 5: mapping key "run" already defined at line 4`},
		// lefthook reads a file's first YAML document only.
		{"the same keys in a second document", "pre-commit:\n  parallel: true\n---\npre-commit:\n  parallel: false\n", ""},
		{"a key twice after a document's start", "---\npre-commit:\n  parallel: true\n  parallel: false\n", `line 4: mapping key "parallel" already defined at line 3`},
		{"the same maps in a list", "pre-commit:\n  skip:\n    - ref: main\n    - ref: dev\n", ""},
		{"keys in a block scalar's text", "pre-commit:\n  commands:\n    q:\n      run: |\n        echo a: b\n        echo a: b\n      skip: false\n", ""},
		{"a key commented out", "pre-commit:\n  skip: true\n  # skip: false\n  only: [merge] # skip: x\n", ""},
		{"a colon in a value", "pre-commit:\n  commands:\n    q:\n      run: echo http://x\n      env:\n        URL: http://x\n", ""},
	} {
		got := ""
		if _, err := lefthookParse("lefthook.yml", []byte(tt.text), nil); err != nil {
			got = err.Error()
		}
		if got != tt.twice {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.twice)
		}
	}
}

// TestLefthookHostileConfiguration: yaml.v3 compares each key of a
// mapping with each other, and decodes an anchor's value again at each
// alias, so that a lefthook configuration of a mapping of many keys, or
// one aliased many times, took doctor minutes (a 10 MB file: over ten),
// parsing it a dozen times, and it read files up to 100 MB. It now reads
// at most maxLefthookConfig, and declines YAML too costly to decode,
// saying that it cannot judge it; lefthook takes as long on it.
func TestLefthookHostileConfiguration(t *testing.T) {
	keys := func(n int, prefix string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%d: %d\n", prefix, i, i)
		}
		return b.String()
	}
	aliased := "x: &x {" + strings.TrimSuffix(strings.ReplaceAll(keys(2000, "k"), "\n", ", "), ", ") + "}\nl: [" +
		strings.TrimSuffix(strings.Repeat("*x, ", 30), ", ") + "]\n"
	for _, tt := range []struct{ name, file, text, says string }{
		{"a file larger than doctor reads", "lefthook-local.yml", "# " + strings.Repeat("x", maxLefthookConfig) + "\npre-commit:\n  skip: true\n",
			"it is larger than 256 KiB"},
		{"TOML larger than doctor reads", "lefthook-local.toml", strings.Repeat("# a comment\n", maxLefthookConfig/10), "it is larger than 256 KiB"},
		{"a mapping of 10,000 keys", "lefthook-local.yml", "pre-commit:\n  env:\n" +
			"    " + strings.ReplaceAll(strings.TrimSuffix(keys(10000, "K"), "\n"), "\n", "\n    ") + "\n", "its YAML takes long to load"},
		{"a mapping of 2,000 keys aliased 30 times", "lefthook-local.yml", aliased, "its YAML takes long to load"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n")
			testgit.Write(t, r.TopLevel, "lefthook.yml", "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n")
			testgit.Write(t, r.TopLevel, tt.file, tt.text)
			c := r.checkHook("pre-commit", Options{})
			want := "; but doctor does not read " + tt.file + ": " + tt.says
			if c.Status != Warn || !strings.Contains(c.Message, want) ||
				!strings.HasSuffix(c.Message, ", so it cannot tell whether lefthook's pre-commit hook runs git-queen's check") {
				t.Fatalf("want a warning %q: %+v", want, c)
			}
		})
	}
}
