package globs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

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

func TestExpandDir(t *testing.T) {
	fsys := fstest.MapFS{
		"src/components/Button.tsx": {},
		"src/comp[1]/x":             {},
		"docs/README.md":            {},
	}
	tests := []struct{ in, want string }{
		{"src/components", "src/components/**"},
		{"src", "src/**"},
		{"src/components/", "src/components/**"},
		{`src/comp\[1\]`, `src/comp\[1\]/**`},
		{"src/components/Button.tsx", "src/components/Button.tsx"},
		{"src/missing", "src/missing"},
		{"src/comp*", "src/comp*"},
		{"docs/README.md/x", "docs/README.md/x"},
	}
	for _, tt := range tests {
		if got, err := ExpandDir(tt.in, DirFS(fsys)); err != nil || got != tt.want {
			t.Errorf("ExpandDir(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}

	// Patterns with wildcards are never looked up.
	asked := 0
	count := func(string) (bool, error) { asked++; return true, nil }
	if got, _ := ExpandDir("src/*", count); got != "src/*" || asked != 0 {
		t.Errorf("ExpandDir(src/*) = %q after %d lookups", got, asked)
	}
	boom := errors.New("index unreadable")
	if _, err := ExpandDir("src", func(string) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("ExpandDir did not pass on the lookup error: %v", err)
	}
	if _, err := ExpandDir("/src", count); !errors.Is(err, ErrAbsolute) {
		t.Errorf("ExpandDir(/src): %v", err)
	}
}

// DirFS on a real directory: a path through a file is ENOTDIR there, not
// ErrNotExist, and still just "not a directory".
func TestDirFSOnDisk(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src", "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "main.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	isDir := DirFS(os.DirFS(root))
	for path, want := range map[string]bool{"src": true, "src/api": true, "src/main.go": false, "src/main.go/x": false, "nope": false} {
		if got, err := isDir(path); err != nil || got != want {
			t.Errorf("isDir(%q) = %v, %v; want %v", path, got, err, want)
		}
	}
	if _, err := fs.Stat(os.DirFS(root), "src/main.go/x"); err == nil {
		t.Fatal("expected an error statting through a file")
	}
}
