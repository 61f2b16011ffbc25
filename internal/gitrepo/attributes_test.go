package gitrepo

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// The attribute files of one random layout, and the paths asked about.
var (
	attrPatterns = []string{"*", "*.jsonl", "x.jsonl", "*.JSONL", "queen_messages.jsonl", ".beads/*.jsonl", "/.beads/*.jsonl",
		".beads/**", "**/*.jsonl", "**/c.jsonl", "a/**/c.jsonl", "a/**", "/a/b/*", "b/*", "/*.jsonl", "a/*/c.jsonl", "a*",
		"a**", "**a", "*/", "a/", "**", "***", "x?jsonl", "?.jsonl", `\x.jsonl`, `x\*.jsonl`, `!x.jsonl`, `\!x.jsonl`, "c.*",
		"*c*", "a/b", "a/b/", "b/c.jsonl", "/b/c.jsonl", "[ab]/c.jsonl", `"x.jsonl"`, "*.json*", "**/b/*", "a/**/b/**", "*/*",
		"*/*/*", ".beads", "a/b/c.jsonl", "/x.jsonl", "x.jsonl/", "ab**", "a/b**", "**/", "a/**/", "*\\", "c.jsonl", "d/**/c.*",
		"a/*", "/a", "b/**/*.jsonl", "**/**/c.jsonl", "a/b/d/*", "**/d/*",
		`a/**\/c.jsonl`, `**\/c.jsonl`, `a/\*\*/c.jsonl`, "*/**/c.jsonl", "a**/c.jsonl", "x.json?", "?", "a/?/c.jsonl", "a/b/**/*"}
	attrStates = []string{"queen-format", "-queen-format", "!queen-format", "queen-format=snapshot", "queen-format=st",
		"queen-format=", "queen-format=a=b", "m1", "-m1", "!m1", "m2", "m2=v", "m3", "binary", "other", "-other", "bad$name",
		"-", "!", "text", "queen-format=x\r", "-queen-format=v"}
	attrMacros = []string{"[attr]m1 queen-format=events", "[attr]m1 -queen-format", "[attr]m2 m1 other", "[attr]m2 !queen-format m1",
		"[attr]binary queen-format=lines", "[attr]m3 m2", "[attr]queen-format m1", "[attr]bad$ queen-format", "[attr] m1 x",
		"[attr]m1", "[attr]m3 queen-format=queen -m1"}
	attrOthers = []string{"", "# queen-format", "   \t", "\t*.jsonl queen-format=indented"}
	attrPaths  = []string{"x.jsonl", "X.JSONL", "a/x.jsonl", "a/b/c.jsonl", "a/b/d/c.jsonl", ".beads/queen_messages.jsonl",
		"b/c.jsonl", "ab/c.jsonl", "a/c.jsonl", "x*.jsonl", "!x.jsonl", "c.jsonl", "a", "a b.jsonl", "a/b/x?jsonl", "d/b/x"}
)

// randomAttributes is an attribute file of a few lines drawn from the
// forms git reads and the ones it ignores.
func randomAttributes(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.Intn(7) {
		switch n := rng.Intn(10); {
		case n < 2:
			b.WriteString(attrMacros[rng.Intn(len(attrMacros))])
		case n < 3:
			b.WriteString(attrOthers[rng.Intn(len(attrOthers))])
		default:
			b.WriteString(attrPatterns[rng.Intn(len(attrPatterns))])
			for range rng.Intn(4) {
				b.WriteString([]string{" ", "\t", "  "}[rng.Intn(3)] + attrStates[rng.Intn(len(attrStates))])
			}
		}
		b.WriteString([]string{"\n", "\n", "\r\n"}[rng.Intn(3)])
	}
	return b.String()
}

// attributeInProcess agrees with `git check-attr` on random layouts of
// every file git reads attributes from: the worktree's .gitattributes at
// three depths, info/attributes, the global file in its default place and
// named by core.attributesFile, with macros, negations, invalid names and
// lines git ignores; and it answers most of them without git.
func TestAttributeAgreesWithGitCheckAttr(t *testing.T) {
	needSystemAttributesKnown(t)
	testgit.Isolate(t)
	repo := testgit.Init(t)
	home := os.Getenv("HOME")
	files := []string{".gitattributes", "a/.gitattributes", "a/b/.gitattributes", ".beads/.gitattributes",
		".git/info/attributes", filepath.Join(home, ".config/git/attributes"), filepath.Join(home, "attrs")}
	rng := rand.New(rand.NewSource(27))
	compared, inProcess, decided := 0, 0, 0
	rounds := 300
	if testing.Short() {
		rounds = 60
	}
	for round := range rounds {
		var layout strings.Builder
		for i, f := range files {
			p := f
			if !filepath.IsAbs(p) {
				p = filepath.Join(repo, f)
			}
			if i > 0 && rng.Intn(2) == 0 {
				os.Remove(p)
				continue
			}
			text := randomAttributes(rng)
			testgit.Write(t, filepath.Dir(p), filepath.Base(p), text)
			layout.WriteString("== " + f + "\n" + text)
		}
		if round%4 == 0 {
			testgit.Run(t, repo, "config", "core.attributesFile", "~/attrs")
			layout.WriteString("== core.attributesFile ~/attrs\n")
		} else {
			Git(repo, "config", "--unset", "core.attributesFile")
		}
		out := testgit.Run(t, repo, append([]string{"check-attr", "-z", FormatAttribute, "--"}, attrPaths...)...)
		fields := strings.Split(out, "\x00")
		for i, p := range attrPaths {
			want := fields[3*i+2]
			got, ok := attributeInProcess(repo, FormatAttribute, p)
			compared++
			if !ok {
				continue
			}
			inProcess++
			if want != "unspecified" {
				decided++
			}
			if got != want {
				t.Errorf("round %d, %s: in process %q, git check-attr %q\n%s", round, p, got, want, layout.String())
			}
		}
	}
	// Quoted patterns, bracket expressions and "builtin_" names send a
	// few to git; most must be read in process, and many of them decided.
	if inProcess < compared*2/3 || decided < inProcess/4 {
		t.Errorf("%d of %d answered in process, %d of them not unspecified: the layouts should give more", inProcess, compared, decided)
	}
}

// A .gitattributes missing from the worktree is read from the index, as
// git does during a merge: then git is asked, and once the index drops it
// too, the files decide again without git.
func TestAttributeOfFileMissingFromWorktree(t *testing.T) {
	needSystemAttributesKnown(t)
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Write(t, repo, ".gitattributes", "*.jsonl queen-format=queen\n")
	testgit.Write(t, repo, ".beads/.gitattributes", "*.jsonl queen-format=snapshot\n")
	testgit.Run(t, repo, "add", "-A")
	os.Remove(filepath.Join(repo, ".beads/.gitattributes"))
	const file = ".beads/issues.jsonl"
	if v, ok := attributeInProcess(repo, FormatAttribute, file); ok {
		t.Errorf("with .beads/.gitattributes only in the index: answered %q in process, want git asked", v)
	}
	if v, err := FormatAttributeOf(repo, file); err != nil || v != "snapshot" {
		t.Errorf("FormatAttributeOf: %q, %v; want snapshot, the index's copy", v, err)
	}
	testgit.Run(t, repo, "rm", "-q", "--cached", ".beads/.gitattributes")
	if v, ok := attributeInProcess(repo, FormatAttribute, file); !ok || v != "queen" {
		t.Errorf("with no .beads/.gitattributes anywhere: %q (in process %v), want queen in process", v, ok)
	}
}

// What the in-process reader leaves to git, each answered by
// FormatAttributeOf as git answers it.
func TestAttributeLeftToGit(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Write(t, repo, ".gitattributes", "*.jsonl queen-format=queen\n")
	sub := filepath.Join(repo, "a")
	os.MkdirAll(sub, 0o755)
	cases := []struct {
		name, dir, path string
		env             [2]string
	}{
		{"a subdirectory", sub, "x.jsonl", [2]string{}},
		{"a path climbing out", repo, "../x.jsonl", [2]string{}},
		{"a path not clean", repo, "./x.jsonl", [2]string{}},
		{"an absolute path", repo, filepath.Join(repo, "x.jsonl"), [2]string{}},
		{"GIT_ATTR_NOSYSTEM", repo, "x.jsonl", [2]string{"GIT_ATTR_NOSYSTEM", "1"}},
		{"GIT_INDEX_FILE", repo, "x.jsonl", [2]string{"GIT_INDEX_FILE", filepath.Join(repo, ".git", "index")}},
		{"a relative XDG_CONFIG_HOME", repo, "x.jsonl", [2]string{"XDG_CONFIG_HOME", "config"}},
		{"a symbolic link for .gitattributes", repo, "b/x.jsonl", [2]string{}},
	}
	os.MkdirAll(filepath.Join(repo, "b"), 0o755)
	if err := os.Symlink("../.gitattributes", filepath.Join(repo, "b", ".gitattributes")); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env[0] != "" {
				t.Setenv(c.env[0], c.env[1])
			}
			if v, ok := attributeInProcess(c.dir, FormatAttribute, c.path); ok {
				t.Errorf("answered %q in process", v)
			}
			got, err := FormatAttributeOf(c.dir, c.path)
			want, gitErr := Git(c.dir, "check-attr", FormatAttribute, "--", c.path)
			if (err != nil) != (gitErr != nil) || err == nil && !strings.HasSuffix(strings.TrimSpace(want), ": "+got) {
				t.Errorf("FormatAttributeOf: %q, %v; git says %q, %v", got, err, want, gitErr)
			}
		})
	}
	t.Run("an attribute file over 1 MiB", func(t *testing.T) {
		big := testgit.Write(t, repo, "c/.gitattributes", strings.Repeat("# padding\n", 120_000)+"*.jsonl queen-format=big\n")
		defer os.Remove(big)
		if v, ok := attributeInProcess(repo, FormatAttribute, "c/x.jsonl"); ok {
			t.Errorf("answered %q in process", v)
		}
		if v, err := FormatAttributeOf(repo, "c/x.jsonl"); err != nil || v != "big" {
			t.Errorf("FormatAttributeOf: %q, %v; want big, as git reads it", v, err)
		}
	})
	t.Run("a bare repository", func(t *testing.T) {
		bare := testgit.Bare(t)
		if v, ok := attributeInProcess(bare, FormatAttribute, "x.jsonl"); ok {
			t.Errorf("answered %q in process", v)
		}
	})
}

// A linked worktree reads info/attributes from the common directory, not
// from its own git directory, as git does.
func TestAttributeInLinkedWorktree(t *testing.T) {
	needSystemAttributesKnown(t)
	testgit.Isolate(t)
	repo := testgit.Init(t)
	linked := filepath.Join(t.TempDir(), "linked")
	testgit.Run(t, repo, "worktree", "add", "-q", linked)
	testgit.Write(t, repo, ".git/info/attributes", "x.jsonl queen-format=common\n")
	testgit.Write(t, repo, ".git/worktrees/linked/info/attributes", "x.jsonl queen-format=private\n")
	linked, _ = filepath.EvalSymlinks(linked)
	want := strings.TrimPrefix(testgit.Run(t, linked, "check-attr", FormatAttribute, "--", "x.jsonl"), "x.jsonl: queen-format: ")
	if got, ok := attributeInProcess(linked, FormatAttribute, "x.jsonl"); !ok || got != want || want != "common" {
		t.Errorf("in the linked worktree: %q (in process %v), git check-attr %q, want common", got, ok, want)
	}
}

// A crafted .gitattributes (a merge reads whatever a branch brought): a
// chain of thousands of macros, each defined by the next and listed
// backwards, decides as git decides.
func TestAttributeThroughAChainOfMacros(t *testing.T) {
	needSystemAttributesKnown(t)
	testgit.Isolate(t)
	repo := testgit.Init(t)
	var b strings.Builder
	const n = 5000
	b.WriteString("[attr]m0 queen-format=deep\n")
	for i := n - 1; i > 0; i-- {
		fmt.Fprintf(&b, "[attr]m%d m%d\n", i, i-1)
	}
	fmt.Fprintf(&b, "x.jsonl m%d\n", n-1)
	testgit.Write(t, repo, ".gitattributes", b.String())
	want := strings.TrimPrefix(testgit.Run(t, repo, "check-attr", FormatAttribute, "--", "x.jsonl"), "x.jsonl: queen-format: ")
	if got, ok := attributeInProcess(repo, FormatAttribute, "x.jsonl"); !ok || got != want || want != "deep" {
		t.Errorf("through %d macros: %q (in process %v), git check-attr %q, want deep", n, got, ok, want)
	}
}

// attributeInProcess is the value attributeFrames and decide read for the
// attribute name of file where dir is, or ok false when git must be asked:
// what the tests compare with git check-attr.
func attributeInProcess(dir, name, file string) (value string, ok bool) {
	frames, ok := attributeFrames(dir, file, false)
	if !ok {
		return "", false
	}
	return decide(frames, name, file)
}

// needSystemAttributesKnown skips a test of answers read in process where
// the git on PATH is not a distribution's build (a git built from source
// into /usr/local or elsewhere, as to test an older git): its system
// attributes file is where its build put it, so every answer rightly goes
// to git (distributionGit), and TestAttributeLeftToGit covers that.
func needSystemAttributesKnown(t *testing.T) {
	t.Helper()
	if !distributionGit() {
		t.Skip("the git on PATH is not a distribution's build in /usr: its system attributes file is unknown, and git answers")
	}
}
