package globs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// Normalize is NormalizeIn of a pattern in its stored form (no repository
// to ask): what these tests, and the fuzz targets, call.
func Normalize(pattern string) (string, error) { return NormalizeIn(pattern, nil) }

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{in: "src/**", want: "src/**"},
		{in: "src/", want: "src/**"},
		{in: "src/api/handler.go", want: "src/api/handler.go"},
		{in: "a/**/", want: "a/**/**"},
		{in: `a\/`, want: `a\/**`},
		{in: ".gitignore", want: ".gitignore"},
		{in: "**/.env", want: "**/.env"},
		{in: "a/.../b", want: "a/.../b"},
		{in: "a/..b/c.", want: "a/..b/c."},
		{in: `docs/\*draft\*.md`, want: `docs/\*draft\*.md`},
		{in: "src/*.{ts,tsx}", want: "src/*.{ts,tsx}"},
		{in: "ünï/cödé/*", want: "ünï/cödé/*"},

		{in: "", err: ErrEmpty},
		{in: strings.Repeat("a/", MaxLen/2+1), err: ErrTooLong},
		{in: "a\xffb", err: ErrEncoding},
		{in: "a\x00b", err: ErrNUL},
		{in: `a\`, err: ErrSyntax},
		{in: "a[b", err: ErrSyntax},
		{in: "a[]", err: ErrSyntax},
		{in: "a[!]", err: ErrSyntax},
		{in: "{a,b", err: ErrSyntax},
		{in: "a}", err: ErrSyntax},
		{in: "/src/x", err: ErrAbsolute},
		{in: "/", err: ErrAbsolute},
		{in: `\/src`, err: ErrAbsolute},
		{in: "a//b", err: ErrEmptySegment},
		{in: "a//", err: ErrEmptySegment},
		{in: "..", err: ErrDotDot},
		{in: "src/../x", err: ErrDotDot},
		{in: `src/\.\./x`, err: ErrDotDot},
		{in: "**/..", err: ErrDotDot},
		{in: "./src", err: ErrDot},
		{in: "src/./x", err: ErrDot},
		{in: ".", err: ErrDot},
		{in: `src\api`, err: ErrBackslash},
		{in: `src\components\Button.tsx`, err: ErrBackslash},
		{in: "[/]", err: ErrMatchesNothing},
		{in: "a[/]/b", err: ErrMatchesNothing},
		{in: "{..}/a", err: ErrMatchesNothing},
		{in: "a/[.]", err: ErrMatchesNothing},
		{in: "*[!x]??????????????*", err: ErrTooComplex},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in)
		if tt.err == nil {
			if err != nil || got != tt.want {
				t.Errorf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, tt.err) {
			t.Errorf("Normalize(%q) = %q, %v; want an error wrapping %q", tt.in, got, err, tt.err)
			continue
		}
		var pe *PatternError
		if !errors.As(err, &pe) || pe.Hint == "" || !strings.Contains(err.Error(), tt.err.Error()) {
			t.Errorf("Normalize(%q): %v is not a *PatternError with a hint", tt.in, err)
		}
		// The message names the pattern, so a person knows which one.
		if tt.err != ErrTooLong && !strings.Contains(err.Error(), strconv.Quote(tt.in)) {
			t.Errorf("Normalize(%q): message %q does not quote the pattern", tt.in, err)
		}
	}
}

// Compile applies the cheap rules and the trailing-slash rule, and leaves
// the automaton checks (matches nothing, too complex) to Normalize.
func TestCompile(t *testing.T) {
	p, err := Compile("src/")
	if err != nil || p.String() != "src/**" {
		t.Fatalf("Compile(src/) = %v, %v", p, err)
	}
	if _, err := Compile("/etc/passwd"); !errors.Is(err, ErrAbsolute) {
		t.Errorf("Compile(/etc/passwd): %v", err)
	}
	if p, err := Compile("[/]"); err != nil || p.Match("a") {
		t.Errorf("Compile([/]) = %v, %v", p, err)
	}
	// Normalizing twice changes nothing.
	for _, in := range []string{"src/", "a/**/", "src/*.ts", `x\/`} {
		once, err := Normalize(in)
		if err != nil {
			t.Fatal(err)
		}
		if twice, err := Normalize(once); err != nil || twice != once {
			t.Errorf("Normalize(%q) = %q, then %q, %v", in, once, twice, err)
		}
	}
}

// TestNormalizeIn is the repository's part of the normalisation, with a
// file system standing in for HEAD, the index and the worktree.
func TestNormalizeIn(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":                 {},
		"package-lock.json":         {},
		"src/components/Button.tsx": {},
		"src/comp[1]/x":             {},
		"docs/README.md":            {},
		"vendor/lib":                {Mode: fs.ModeDir},
	}
	tests := []struct {
		in, want string
		err      error
	}{
		// A file is itself, and nothing beneath it.
		{in: "README.md", want: "README.md"},
		{in: "package-lock.json", want: "package-lock.json"},
		{in: "src/components/Button.tsx", want: "src/components/Button.tsx"},
		{in: "README.md/", want: "README.md"},
		{in: "README.md/**", want: "README.md"},
		// A directory (a submodule is one in the worktree) is its subtree.
		{in: "src/components", want: "src/components/**"},
		{in: "src", want: "src/**"},
		{in: "vendor/lib", want: "vendor/lib/**"},
		{in: "src/components/", want: "src/components/**"},
		{in: `src/comp\[1\]`, want: `src/comp\[1\]/**`},
		// Nothing yet: it may become a directory.
		{in: "src/missing", want: "src/missing/**"},
		{in: "newdir", want: "newdir/**"},
		{in: "newdir/**", want: "newdir/**"},
		// Globs mean what they say.
		{in: "src/comp*", want: "src/comp*"},
		{in: "**/*.go", want: "**/*.go"},
		{in: "src/**/*.go", want: "src/**/*.go"},
		{in: "missing/*.go", want: "missing/*.go"},
		{in: "**", want: "**"},
		// Nothing can exist beneath a file.
		{in: "docs/README.md/x", err: ErrBeneathFile},
		{in: "README.md/*.go", err: ErrBeneathFile},
		{in: "README.md/x/**", err: ErrBeneathFile},
		{in: "README.md/x/*.go", err: ErrBeneathFile},
		// The other rules still come first.
		{in: "/src", err: ErrAbsolute},
		{in: "[/]", err: ErrMatchesNothing},
	}
	for _, tt := range tests {
		got, err := NormalizeIn(tt.in, KindFS(fsys))
		if tt.err != nil {
			var pe *PatternError
			if !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Hint == "" {
				t.Errorf("NormalizeIn(%q) = %q, %v; want a *PatternError wrapping %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeIn(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		// Stored, it is final: checked again without the repository, and
		// in it, it stays as it is.
		if again, err := Normalize(got); err != nil || again != got {
			t.Errorf("Normalize(%q) = %q, %v; a stored pattern must stay", got, again, err)
		}
		if again, err := NormalizeIn(got, KindFS(fsys)); err != nil || again != got {
			t.Errorf("NormalizeIn(%q) = %q, %v; normalising twice must change nothing", got, again, err)
		}
	}

	// One lookup a pattern, none for "**" or a glob without a literal
	// directory.
	var asked []string
	count := func(p string) (PathKind, error) { asked = append(asked, p); return Dir, nil }
	for _, in := range []string{"src/*", "**", "*.go", "{a,b}/c", "src/api/**/*.go"} {
		if _, err := NormalizeIn(in, count); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"src", "src/api"}; !slices.Equal(asked, want) {
		t.Errorf("looked up %q, want %q", asked, want)
	}
	boom := errors.New("index unreadable")
	if _, err := NormalizeIn("src", func(string) (PathKind, error) { return Absent, boom }); !errors.Is(err, boom) {
		t.Errorf("NormalizeIn did not pass on the lookup error: %v", err)
	}
}

// The stored form is what makes overlap match the repository: a file
// reserved by name conflicts with no other file's pattern, a directory
// with what is in it.
func TestNormalizedOverlap(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":                 {},
		"package-lock.json":         {},
		"src/components/Button.tsx": {},
		"src/api/handler.go":        {},
	}
	tests := []struct {
		a, b    string
		witness string
	}{
		{"README.md", "**/*.go", ""},
		{"package-lock.json", "**/*.lock", ""},
		{"README.md", "**/*.md", "README.md"},
		{"src/components", "src/components/Button.tsx", "src/components/Button.tsx"},
		{"src/components", "**/*.tsx", "src/components/.tsx"},
		{"src/api", "src/**", "src/api"},
		{"src/api/handler.go", "src/api/**", "src/api/handler.go"},
		{"src/api/handler.go", "**/*_test.go", ""},
		{"newdir", "newdir/*.go", "newdir/.go"},
		{"newdir", "**/*.go", "newdir/.go"},
	}
	for _, tt := range tests {
		a, err := NormalizeIn(tt.a, KindFS(fsys))
		if err != nil {
			t.Fatal(err)
		}
		b, err := NormalizeIn(tt.b, KindFS(fsys))
		if err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2]string{{a, b}, {b, a}} {
			w, ok, err := Overlap(pair[0], pair[1])
			if err != nil || w != tt.witness || ok != (tt.witness != "") {
				t.Errorf("%s (%s) against %s (%s): %q, %v, %v; want %q", tt.a, a, tt.b, b, w, ok, err, tt.witness)
			}
		}
	}
}

// KindFS on a real directory: a path through a file is ENOTDIR there, and
// a symbolic link is a file, as git sees it.
func TestKindFSOnDisk(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src", "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "main.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("api", filepath.Join(root, "src", "link")); err != nil {
		t.Fatal(err)
	}
	kind := KindFS(os.DirFS(root))
	for path, want := range map[string]PathKind{"src": Dir, "src/api": Dir, "src/main.go": File, "src/link": File,
		"src/main.go/x": BeneathFile, "src/main.go/x/y": BeneathFile, "nope": Absent, "src/nope/x": Absent} {
		if got, err := kind(path); err != nil || got != want {
			t.Errorf("kind(%q) = %v, %v; want %v", path, got, err, want)
		}
	}
}
