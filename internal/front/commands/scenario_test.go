package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// step is one command of a scenario, run as a droid ("" for none).
type step struct {
	droid  string
	args   string // split on spaces; use `'...'` for one argument with spaces
	code   int
	stdout []string // regular expressions that must match stdout
	stderr []string // regular expressions that must match stderr
}

// newStoreRepo makes a repository with an empty .beads/ directory.
func newStoreRepo(t *testing.T) string {
	t.Helper()
	testgit.Isolate(t)
	repo := testgit.Init(t)
	if err := os.MkdirAll(filepath.Join(repo, ".beads"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo
}

// splitArgs splits on spaces, keeping '...' together.
func splitArgs(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`'[^']*'|\S+`).FindAllString(s, -1) {
		out = append(out, strings.Trim(m, "'"))
	}
	return out
}

// runScenario runs steps in dir, remembering values from --json output:
// a step's args may use $1, $2... for ids captured by earlier steps with
// capture(), see runStep.
func runScenario(t *testing.T, dir string, steps []step) []result {
	t.Helper()
	var results []result
	for i, s := range steps {
		env := map[string]string{}
		if s.droid != "" {
			env["QUEEN_DROID"] = s.droid
		}
		r := runIn(t, dir, env, splitArgs(s.args)...)
		results = append(results, r)
		if r.Code != s.code {
			t.Fatalf("step %d (%s as %q): exit %d, want %d\nstdout:\n%s\nstderr:\n%s", i, s.args, s.droid, r.Code, s.code, r.Stdout, r.Stderr)
		}
		for _, re := range s.stdout {
			if !regexp.MustCompile(re).MatchString(r.Stdout) {
				t.Fatalf("step %d (%s): stdout does not match %q:\n%s", i, s.args, re, r.Stdout)
			}
		}
		for _, re := range s.stderr {
			if !regexp.MustCompile(re).MatchString(r.Stderr) {
				t.Fatalf("step %d (%s): stderr does not match %q:\n%s", i, s.args, re, r.Stderr)
			}
		}
	}
	return results
}

// jsonField digs a value out of --json output: path like "sent.0.id".
func jsonField(t *testing.T, out, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			for _, c := range k {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				t.Fatalf("%s: index %d out of range in %s", path, i, out)
			}
			v = x[i]
		}
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}
