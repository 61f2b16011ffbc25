package hooks

import (
	"strings"
	"testing"
)

// TestShims: each shim is marked with its name and this version, runs its
// own check, and finds the hook it chained by the hook's name, so that a
// manager that renames the shim (the pre-commit framework's NAME.legacy)
// still runs it.
func TestShims(t *testing.T) {
	for _, name := range Names {
		shim := string(Shim(name))
		for _, want := range []string{"#!/bin/sh\n", Marker(name), VersionLine, "git-queen hook " + name + ` "$@"`,
			`chained="$(dirname "$0")/` + name + ChainedSuffix + `"`, "-tags urfave_cli_no_docs", "cmd/git-queen-mcp@latest"} {
			if !strings.Contains(shim, want) {
				t.Errorf("the %s shim lacks %q", name, want)
			}
		}
		if strings.Contains(shim, `"$0.queen-chained"`) {
			t.Errorf("the %s shim finds its chained hook by $0", name)
		}
	}
}

// TestPrePushShimExplainsItselfToGitLFS: git lfs install and update print
// the first 1024 bytes of a pre-push hook that is not theirs; those bytes
// say that LFS's pre-push runs here, and what installs LFS's other hooks.
func TestPrePushShimExplainsItselfToGitLFS(t *testing.T) {
	head := string(PrePush[:1024])
	for _, want := range []string{"git lfs pre-push", "git queen hooks install", "post-checkout", "--skip-repo"} {
		if !strings.Contains(head, want) {
			t.Errorf("the first 1024 bytes of the pre-push shim lack %q", want)
		}
	}
	for _, want := range []string{"input=$(cat)", "git lfs pre-push \"$@\"", "lfs/objects"} {
		if !strings.Contains(string(PrePush), want) {
			t.Errorf("the pre-push shim lacks %q", want)
		}
	}
}
