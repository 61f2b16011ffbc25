package commands

import (
	"runtime/debug"
	"time"
)

// version is set at build time with
// -ldflags "-X github.com/git-queen/git-queen/internal/front/commands.version=v1.2.3".
var version = ""

// Version is the version git-queen reports, for bug reports and the MCP
// handshake (see versionOf).
func Version() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(version, info)
}

// versionOf is the version of a build: the linker-set one (make install's),
// else the module version Go recorded (`go install ...@v1.2.3`; `go build`
// in a clone stamps a pseudo-version of its commit), else the commit Go
// stamped, said as that pseudo-version, else "devel": Go stamps nothing in
// a git worktree (its .git is a file) or with -buildvcs=false.
func versionOf(linked string, info *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	at, err := time.Parse(time.RFC3339, vcs["vcs.time"])
	if rev := vcs["vcs.revision"]; len(rev) >= 12 && err == nil {
		v := "v0.0.0-" + at.UTC().Format("20060102150405") + "-" + rev[:12]
		if vcs["vcs.modified"] == "true" {
			v += "+dirty"
		}
		return v
	}
	return "devel"
}
