package setup

import "testing"

// TestRefsReadTwice: a pre-push script that runs git-queen's check and
// Git LFS's pre-push must give each its own copy of git's refs.
func TestRefsReadTwice(t *testing.T) {
	queen, lfs := TrackedLine("pre-push"), `git lfs pre-push "$@"`
	for _, tt := range []struct {
		script           string
		scriptLFS, twice bool
	}{
		{queen + "\n", false, false},
		{lfs + "\n", true, false}, // no check of git-queen's: nothing to share
		{lfs + "\n" + queen + "\n", true, true},
		{queen + "\n" + lfs + "\n", true, true},
		{"git-queen hook pre-push \"$@\" && " + lfs + "\n", true, true},
		{SharedRefsLine + "\n", true, false},
		{"input=$(cat)\nprintf '%s\\n' \"$input\" | git-queen hook pre-push \"$@\"\nprintf '%s\\n' \"$input\" | " + lfs + "\n", true, false},
		// Only one of the two has its copy.
		{"input=$(cat)\nprintf '%s\\n' \"$input\" | git-queen hook pre-push \"$@\"\n" + lfs + "\n", true, true},
		{"input=$(cat); printf '%s\\n' \"$input\" | git-queen hook pre-push \"$@\"; " + lfs + "\n", true, true},
		{"x || " + lfs + "; printf '%s\\n' \"$input\" | git-queen hook pre-push\n", true, true},
		// A redirection or a here-document is a copy too.
		{"cat > \"$f\"\ngit-queen hook pre-push \"$@\" < \"$f\"\ngit lfs pre-push \"$@\" <\"$f\"\n", true, false},
		{"git lfs push --stdin origin\n" + queen + "\n", true, true},
		{"# git lfs pre-push \"$@\"\n" + queen + "\n", false, false},
	} {
		h := &Hook{Name: "pre-push", RunsQueen: callsQueen([]byte(tt.script), "pre-push")}
		h.lfsScript([]byte(tt.script))
		if h.scriptLFS != tt.scriptLFS || h.refsReadTwice != tt.twice {
			t.Errorf("%q: scriptLFS %v, refsReadTwice %v; want %v, %v", tt.script, h.scriptLFS, h.refsReadTwice, tt.scriptLFS, tt.twice)
		}
	}
}
