package setup

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// frameworkInstallPython matches the line of the framework's generated
// hook that names the Python it runs the framework with
// (INSTALL_PYTHON=/usr/bin/python3, shell-quoted).
var frameworkInstallPython = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^INSTALL_PYTHON=(.+)$`) })

// frameworkMetadata matches the metadata directory an install of the
// framework leaves beside its package (pre_commit-3.0.4.dist-info, or
// Debian's .egg-info), its version.
var frameworkMetadata = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^pre_commit-([0-9.]+)\.(?:dist|egg)-info$`) })

// frameworkVersion is the version of the pre-commit framework that its
// generated hook script runs, read where installs put its metadata for
// the Python the script names (a venv's or pipx's lib/python3.X/site-
// packages, Debian's /usr/lib/python3/dist-packages, the user's
// ~/.local): doctor runs nothing to learn it. "" when it cannot tell:
// that Python is not there (the script then runs the pre-commit on PATH),
// PYTHONPATH or PYTHONHOME moves them, or it finds more than one version
// (one pip put in /usr/local beside Debian's, which Python reads first).
func frameworkVersion(script []byte, getenv func(string) string) string {
	m := frameworkInstallPython().FindSubmatch(script)
	if m == nil || getenv == nil || getenv("PYTHONPATH") != "" || getenv("PYTHONHOME") != "" {
		return ""
	}
	words := shellWords(string(m[1]))
	if len(words) != 1 {
		return ""
	}
	if _, err := os.Stat(words[0]); err != nil {
		return ""
	}
	prefix := filepath.Dir(filepath.Dir(words[0]))
	places := []string{filepath.Join(prefix, "lib", "python3*", "*-packages"), filepath.Join(prefix, "lib", "site-packages"),
		filepath.Join(prefix, "local", "lib", "python3*", "dist-packages")} // Debian's /usr python reads /usr/local's too, first
	if home := getenv("HOME"); home != "" {
		user := cmp.Or(getenv("PYTHONUSERBASE"), filepath.Join(home, ".local"))
		places = append(places, filepath.Join(user, "lib", "python3*", "site-packages"),
			filepath.Join(home, "Library", "Python", "3*", "lib", "python", "site-packages"))
	}
	var found []string
	for _, place := range places {
		dirs, _ := filepath.Glob(filepath.Join(place, "pre_commit-*-info"))
		for _, dir := range dirs {
			if m := frameworkMetadata().FindStringSubmatch(filepath.Base(dir)); m != nil && !slices.Contains(found, m[1]) {
				found = append(found, m[1])
			}
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

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

// frameworkTooOld says why the framework of version (frameworkVersion)
// refuses config, where a later one would not: a stage name 3.2 brought,
// or a minimum_pre_commit_version above it (of the file, or of a hook:
// git-queen's ids in its .pre-commit-hooks.yaml ask for 3.2.0). "" when
// it does not, or the version is not known.
func frameworkTooOld(config frameworkConfig, shown string) string {
	version := parseVersion(shown)
	if version == nil {
		return ""
	}
	minimum := func(value *yaml.Node) string { value, _ = pyYAMLType(value); return value.Value } // a string: frameworkLoad
	stages := derefStages(config.DefaultStages)
	needs := [][2]string{{"its minimum_pre_commit_version is", minimum(&config.MinimumVersion)}}
	for _, repo := range config.Repos {
		for _, h := range repo.Hooks {
			stages = append(stages, derefStages(h.Stages)...)
			needs = append(needs, [2]string{"hook " + h.ID + "'s minimum_pre_commit_version is", minimum(&h.MinimumVersion)})
			if minimum(&h.MinimumVersion) == "" && !h.local && frameworkQueenID(h.ID) {
				needs = append(needs, [2]string{"git-queen's hook " + h.ID + " needs pre-commit", "3.2.0"})
			}
		}
	}
	if slices.Compare(version, []int{3, 2}) < 0 {
		for _, stage := range stages {
			if _, isNew := frameworkNewStages[stage]; isNew {
				return fmt.Sprintf("the hook runs pre-commit %s, which knows no stage %q: 3.2 brought that name; "+
					"upgrade pre-commit, or write commit, merge-commit and push, which every version reads", shown, stage)
			}
		}
	}
	for _, need := range needs {
		if n := parseVersion(need[1]); n != nil && slices.Compare(n, version) > 0 {
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
