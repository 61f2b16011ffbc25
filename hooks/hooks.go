// Package hooks holds the hook shims `git queen init` installs. A shim only
// runs `git-queen hook NAME` (and a hook it replaced); everything clever is
// in git-queen, so upgrading git-queen upgrades the hook's behaviour.
package hooks

import _ "embed"

// PreCommit is the pre-commit shim, as installed.
//
//go:embed pre-commit
var PreCommit []byte

// Marker identifies a hook git-queen installed, whatever its version.
const Marker = "# git-queen pre-commit hook"

// VersionLine identifies this version of the shim.
const VersionLine = "# git-queen-hook-version: 1"

// ChainedSuffix is appended to the name of a hook that was there before
// git-queen's: the shim runs it after its own check.
const ChainedSuffix = ".queen-chained"
