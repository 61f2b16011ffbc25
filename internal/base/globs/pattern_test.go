package globs

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// The literal prefix and suffix drive Overlap's quick rejections and its
// jump over a shared prefix; the subtree form drives its shortcut for
// "dir/**". Too short is only slower, too long would be wrong.
func TestShape(t *testing.T) {
	tests := []struct {
		pattern, prefix, suffix string
		literal, subtree        bool
		dir                     string
	}{
		{"src/*.ts", "src/", ".ts", false, false, ""},
		{`a\*b/c*d\.e`, "a*b/c", "d.e", false, false, ""},
		{"a{b,c}d", "a", "d", false, false, ""},
		{"x[ab]y", "x", "y", false, false, ""},
		{"x[}]y", "x", "y", false, false, ""},
		{"plain/path.go", "plain/path.go", "plain/path.go", true, false, ""},
		{`a\{b`, "a{b", "a{b", true, false, ""},
		{"a,b", "a,b", "a,b", true, false, ""},
		{"{a,b}", "", "", false, false, ""},
		{"src/api/**", "src/api/", "", false, true, "src/api"},
		{`s\[1\]/**`, "s[1]/", "", false, true, "s[1]"},
		{"**", "", "", false, true, ""},
		{"src/", "src/", "", false, true, "src"},
		{"**/**", "", "", false, false, ""},
		{`a\/**`, "a/", "", false, false, ""},
		{"a/*/**", "a/", "", false, false, ""},
	}
	for _, tt := range tests {
		p, err := Compile(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if p.prefix != tt.prefix || p.suffix != tt.suffix || p.literal != tt.literal || p.subtree != tt.subtree || p.dir != tt.dir {
			t.Errorf("%q: prefix %q suffix %q literal %v subtree %v dir %q; want %q %q %v %v %q", tt.pattern,
				p.prefix, p.suffix, p.literal, p.subtree, p.dir, tt.prefix, tt.suffix, tt.literal, tt.subtree, tt.dir)
		}
	}
}

// The Pattern method adds the literal and prefix shortcuts; it must agree
// with doublestar on the normalised pattern too.
func TestPatternMatch(t *testing.T) {
	for _, pat := range []string{"src/api/**", "src/a.go", "src/", "docs/*.md", "a/**/", `a\*b`} {
		p, err := Compile(pat)
		if err != nil {
			t.Fatal(err)
		}
		alpha := pathAlphabet(p.String())
		allPaths(alpha, pathBound(len(alpha), 20000), func(path string) bool {
			want, _ := doublestar.Match(p.String(), path)
			if got := p.Match(path); got != want {
				t.Errorf("Compile(%q).Match(%q) = %v, doublestar says %v", pat, path, got, want)
				return false
			}
			return true
		})
	}
	p, _ := Compile("src/api/**")
	for path, want := range map[string]bool{"src/api": true, "src/api/x.go": true, "src/ap": false, "src/apix": false} {
		if p.Match(path) != want {
			t.Errorf("src/api/** Match(%q) != %v", path, want)
		}
	}
}

// Escape makes a path into the pattern that matches it and nothing else.
func TestEscape(t *testing.T) {
	for _, path := range []string{"src/api", "we*ird", "a[1]/b{c,d}", `back\slash`, "q?", "x}y", "ünï"} {
		p, err := Compile(Escape(path))
		if err != nil {
			t.Errorf("Escape(%q) = %q: %v", path, Escape(path), err)
			continue
		}
		if lit, ok := literalText(p.String()); !ok || lit != path || !p.Match(path) {
			t.Errorf("Escape(%q) = %q, which is not the literal path", path, Escape(path))
		}
		for _, other := range []string{"we1ird", "a1/bc", "q", "src/api/x"} {
			if other != path && p.Match(other) {
				t.Errorf("Escape(%q) = %q matches %q", path, Escape(path), other)
			}
		}
	}
}
