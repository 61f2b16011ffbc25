package setup

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// parseVersion reads a version as the framework compares them, numbers
// between dots; nil for one it cannot read.
func parseVersion(version string) []int {
	var numbers []int
	for part := range strings.SplitSeq(version, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil
		}
		numbers = append(numbers, n)
	}
	return numbers
}

// frameworkTooOld says why the framework h runs fails a hook of config
// that validate-config does not judge: one whose minimum_pre_commit_version
// is above the framework's version (git-queen's ids in its
// .pre-commit-hooks.yaml ask for 3.2.0). It asks the framework its version
// (pre-commit --version) only when a hook needs one. "" when none does.
func (r *Repo) frameworkTooOld(h *Hook, config frameworkConfig) string {
	var needs [][2]string
	for _, repo := range config.Repos {
		for _, hook := range repo.Hooks {
			if hook.MinimumVersion.Value != "" {
				needs = append(needs, [2]string{"hook " + hook.ID + "'s minimum_pre_commit_version is", hook.MinimumVersion.Value})
			} else if !hook.local && frameworkQueenID(hook.ID) {
				needs = append(needs, [2]string{"git-queen's hook " + hook.ID + " needs pre-commit", "3.2.0"})
			}
		}
	}
	command := r.frameworkCommand(h)
	if len(needs) == 0 || command == nil {
		return ""
	}
	shown := r.frameworkVersion(command)
	version := parseVersion(shown)
	for _, need := range needs {
		if n := parseVersion(need[1]); version != nil && n != nil && slices.Compare(n, version) > 0 {
			return fmt.Sprintf("%s %s, and the hook runs pre-commit %s: upgrade pre-commit", need[0], need[1], shown)
		}
	}
	return ""
}

// frameworkQueenID says whether id is one of git-queen's in its
// .pre-commit-hooks.yaml, at any hook.
func frameworkQueenID(id string) bool {
	for _, ids := range frameworkHookIDs {
		if slices.Contains(ids, id) {
			return true
		}
	}
	return false
}
