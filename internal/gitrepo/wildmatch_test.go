package gitrepo

import "testing"

// What git's wildmatch.c answers, with and without WM_PATHNAME ("**/"
// may match no directory either way); the differential attribute test
// compares the rest with git itself.
func TestWildmatch(t *testing.T) {
	for _, c := range []struct {
		pattern, text      string
		match, matchNoPath bool
	}{
		{"foo", "foo", true, true},
		{"foo", "bar", false, false},
		{"???", "foo", true, true},
		{"*", "foo/bar", false, true},
		{"foo/*", "foo/bar", true, true},
		{"foo/*", "foo/bar/baz", false, true},
		{"foo/**", "foo/bar/baz", true, true},
		{"foo/**/bar", "foo/bar", true, true},
		{"foo/**/bar", "foo/a/b/bar", true, true},
		{"**/foo", "foo", true, true},
		{"**/foo", "x/y/foo", true, true},
		{"*/foo", "x/y/foo", false, true},
		{"foo**", "foo/bar", false, false},
		{"**", "a/b/c", true, true},
		{`\*`, "*", true, true},
		{`\*`, "a", false, false},
		{`foo\`, "foo", false, false},
		{"?", "/", false, true},
		{"*.jsonl", ".beads/log.jsonl", false, true},
		{"a*b*c", "aXbYc", true, true},
		{"a*b*c", "aXbY", false, false},
	} {
		if got := wildmatch(c.pattern, c.text, true); got != c.match {
			t.Errorf("wildmatch(%q, %q) with WM_PATHNAME = %v, want %v", c.pattern, c.text, got, c.match)
		}
		if got := wildmatch(c.pattern, c.text, false); got != c.matchNoPath {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pattern, c.text, got, c.matchNoPath)
		}
	}
}
