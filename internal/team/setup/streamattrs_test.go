package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

func TestAttributePattern(t *testing.T) {
	for _, tc := range []struct{ in, want, why string }{
		{"plan.jsonl", "plan.jsonl", ""},
		{"plans/*.jsonl", "**/plans/*.jsonl", ""},
		{"/plans/*.jsonl", "/plans/*.jsonl", ""},
		{"**/plans/*.jsonl", "**/plans/*.jsonl", ""},
		{"plans/**", "**/plans/**", ""},
		{"plans/", "plans", ""},
		{"my plans/x.jsonl", "", "spaces"},
		{"!x.jsonl", "", "negation"},
		{"#x.jsonl", "", "comment"},
		{"/", "", "empty"},
	} {
		got, why := attributePattern(tc.in)
		if got != tc.want || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
			t.Errorf("attributePattern(%q) = %q, %q; want %q, %q", tc.in, got, why, tc.want, tc.why)
		}
	}
}

// init routes the st streams queen.toml names to the merge driver, once,
// and leaves a merge attribute a user gave one of them as written.
func TestInitRoutesConfiguredStreams(t *testing.T) {
	r := newRepo(t)
	os.MkdirAll(r.BeadsDir, 0o755)
	os.WriteFile(filepath.Join(r.BeadsDir, "queen.toml"), []byte(`
[[format]]
path = "plans/*.jsonl"
format = "st"
[[format]]
path = "/roadmap.jsonl"
format = "st"
[[format]]
path = "theirs/*.jsonl"
format = "st"
[[format]]
path = "docs/plan.jsonl"
format = "st"
[[format]]
path = "vendor/**"
format = "none"
`), 0o644)
	attrs := filepath.Join(r.TopLevel, ".gitattributes")
	user := "theirs/*.jsonl merge=union\n**/plans/*.jsonl merge=queen\n/docs/plan.jsonl  merge=queen\n"
	os.WriteFile(attrs, []byte(user), 0o644)
	if _, _, err := r.Init(Options{Droid: "ann", NoHooks: true}); err != nil {
		t.Fatal(err)
	}
	got := read(t, attrs)
	if !strings.HasPrefix(got, user) || strings.Count(got, "**/plans/*.jsonl merge=queen") != 1 ||
		!strings.Contains(got, "\n/roadmap.jsonl merge=queen\n") || strings.Contains(got, "theirs/*.jsonl merge=queen") ||
		strings.Contains(got, "vendor") || strings.Count(got, "docs/plan.jsonl") != 1 {
		t.Fatalf(".gitattributes after init:\n%s", got)
	}
	for path, want := range map[string]string{"plans/a.jsonl": "queen", "sub/plans/a.jsonl": "queen",
		"roadmap.jsonl": "queen", "sub/roadmap.jsonl": "unspecified", "theirs/a.jsonl": "union"} {
		out := testgit.Run(t, r.TopLevel, "check-attr", "merge", "--", path)
		if !strings.HasSuffix(strings.TrimSpace(out), "merge: "+want) {
			t.Errorf("%s: %s, want merge %s", path, out, want)
		}
	}
	changes, checks, err := r.Init(Options{Droid: "ann", NoHooks: true})
	if err != nil || len(changes) != 0 || read(t, attrs) != got {
		t.Fatalf("second init changed %+v (%v)", changes, err)
	}
	if statusOf(checks, "st-gitattributes") != Warn {
		t.Fatalf("the user's merge=union is not reported: %+v", checks)
	}

	// doctor reports a line that went missing, and --fix puts it back.
	os.WriteFile(attrs, []byte(strings.Replace(got, "/roadmap.jsonl merge=queen\n", "", 1)), 0o644)
	_, checks, _ = r.Doctor(Options{NoHooks: true}, false)
	for _, c := range checks {
		if c.Name == "st-gitattributes" && (c.Status != Fail || !strings.Contains(c.Message, "/roadmap.jsonl merge=queen")) {
			t.Fatalf("doctor: %+v", c)
		}
	}
	if _, _, err := r.Doctor(Options{NoHooks: true}, true); err != nil || !strings.Contains(read(t, attrs), "/roadmap.jsonl merge=queen") {
		t.Fatalf("doctor --fix: %v\n%s", err, read(t, attrs))
	}
}

// A queen.toml that does not parse is a warning, not a failure of init.
func TestBrokenConfigWarns(t *testing.T) {
	r := newRepo(t)
	os.MkdirAll(r.BeadsDir, 0o755)
	os.WriteFile(filepath.Join(r.BeadsDir, "queen.toml"), []byte("[[format]]\npath = \"x\"\nfromat = \"st\"\n"), 0o644)
	c := r.checkStreamAttributes()
	if c.Status != Warn || !strings.Contains(c.Message, "cannot read") {
		t.Fatalf("%+v", c)
	}
}
