// Package hooks holds the hook shims `git queen init` installs. A shim only
// runs `git-queen hook NAME`, then the hook that was there before it (kept
// as NAME.queen-chained, found by the hook's name so that a manager that
// renames the shim still runs it) and, in pre-push, Git LFS's pre-push when
// nothing else runs it; everything clever is in git-queen, so upgrading
// git-queen upgrades the hook's behaviour.
package hooks

import (
	"bytes"
	_ "embed"
	"strconv"
)

// PreCommit is the pre-commit shim, as installed.
//
//go:embed pre-commit
var PreCommit []byte

// PreMergeCommit is the pre-merge-commit shim: git runs it before it
// commits a merge that had no conflicts (one with conflicts is committed
// by `git commit`, which runs pre-commit).
//
//go:embed pre-merge-commit
var PreMergeCommit []byte

// PrePush is the pre-push shim: the one check cherry-picks, rebases, am
// and amends cannot get around, since every route off the machine is a
// push.
//
//go:embed pre-push
var PrePush []byte

// Names are the hooks git-queen installs, in the order doctor lists them.
var Names = []string{"pre-commit", "pre-merge-commit", "pre-push"}

// Shim is the shim of the hook name.
func Shim(name string) []byte {
	switch name {
	case "pre-merge-commit":
		return PreMergeCommit
	case "pre-push":
		return PrePush
	}
	return PreCommit
}

// Marker identifies a hook git-queen installed, whatever its version.
func Marker(name string) string { return "# git-queen " + name + " hook" }

// VersionLine identifies this version of the shims.
const VersionLine = versionPrefix + "3"

const versionPrefix = "# git-queen-hook-version: "

// Newer says whether the hook data is a shim of a later version than this
// git-queen's: a newer git-queen wrote it.
func Newer(data []byte) bool {
	return shimVersion(data) > shimVersion([]byte(VersionLine))
}

func shimVersion(data []byte) int {
	_, rest, _ := bytes.Cut(data, []byte(versionPrefix))
	rest, _, _ = bytes.Cut(rest, []byte("\n"))
	n, _ := strconv.Atoi(string(bytes.TrimSpace(rest)))
	return n
}

// ChainedSuffix is appended to the name of a hook that was there before
// git-queen's: the shim runs it after its own check, with the same
// arguments (and, for pre-push, the same refs on stdin).
const ChainedSuffix = ".queen-chained"
