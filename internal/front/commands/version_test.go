package commands

import (
	"runtime/debug"
	"testing"
)

// --version says which build runs: the version the linker was given, the
// module's (go install ...@v1.2.3, or the pseudo-version go build stamps
// in a clone), else the commit go build stamped, in the same form. Before,
// a build whose module version Go left "(devel)" said "devel", though it
// named its commit.
func TestVersionNamesTheBuild(t *testing.T) {
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "df8243dd697978858167aa093f894bbc2ee340fc"},
			{Key: "vcs.time", Value: "2026-11-28T23:07:53Z"}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tt := range []struct {
		linked, module string
		settings       []debug.BuildSetting
		want           string
	}{
		{"v1.2.3", "v1.0.0", vcs("false"), "v1.2.3"},
		{"", "v1.0.0", vcs("false"), "v1.0.0"},
		{"", "(devel)", vcs("false"), "v0.0.0-20261128230753-df8243dd6979"},
		{"", "(devel)", vcs("true"), "v0.0.0-20261128230753-df8243dd6979+dirty"},
		{"", "(devel)", nil, "devel"}, // a git worktree's build, or -buildvcs=false: Go stamps nothing
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/git-queen/git-queen", Version: tt.module}, Settings: tt.settings}
		if got := versionOf(tt.linked, info); got != tt.want {
			t.Errorf("linked %q, module %q, %d settings: %q, want %q", tt.linked, tt.module, len(tt.settings), got, tt.want)
		}
	}
}
