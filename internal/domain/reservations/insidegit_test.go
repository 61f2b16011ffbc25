package reservations

import "testing"

// A pattern that can match only .git or paths in it protects nothing; one
// that also matches other paths protects those.
func TestInsideGitDir(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		inside  bool
	}{
		{".git/**", true},
		{".git/config", true},
		{"src/.git/x/**", true},
		{"**/.GIT/**", true},
		{".gi[t]/config", true},
		{".gi[t]", true},
		{"src/.[Gg]it/**", true},
		{".gitattributes", false},
		{".github/**", false},
		{".git*", false},
		{".gi?/y", false},
		{"{.git,docs}/x", false},
		{"src/**", false},
		{"src/*.go", false},
	} {
		if got := InsideGitDir(tt.pattern); got != tt.inside {
			t.Errorf("InsideGitDir(%q) = %v, want %v", tt.pattern, got, tt.inside)
		}
	}
}
