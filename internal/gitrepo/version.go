package gitrepo

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// GitVersion is the version of the git command on PATH. Users run the
// git their system ships (Ubuntu 22.04: 2.34), and a few things git-queen
// asks of git are newer than that: what needs which version is said here,
// once, so that a git too old is named as the cause, never a remote that
// "cannot be reached".
type GitVersion struct {
	Major, Minor, Patch int
	// Text is git's own words after "git version" ("2.34.1",
	// "2.39.5 (Apple Git-154)", "2.45.1.windows.1").
	Text string
}

// MinimumGit is the oldest git git-queen works with: it finds the
// repository with `git rev-parse --path-format=absolute` (git 2.31) and
// lists its files with `git ls-files --deduplicate` (git 2.31).
var MinimumGit = GitVersion{Major: 2, Minor: 31, Text: "2.31"}

// ConfigGlobalGit is the oldest git that reads the global and system
// configuration from GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM (2.32).
var ConfigGlobalGit = GitVersion{Major: 2, Minor: 32, Text: "2.32"}

// RefetchGit is the oldest git with `git fetch --refetch` (2.36), with
// which transport.Refetch fetches again an object of the remote's ledger
// this clone lost; before it, Refetch fetches into an object directory
// of its own.
var RefetchGit = GitVersion{Major: 2, Minor: 36, Text: "2.36"}

// AtLeast says whether v is min or newer.
func (v GitVersion) AtLeast(min GitVersion) bool {
	if v.Major != min.Major {
		return v.Major > min.Major
	}
	if v.Minor != min.Minor {
		return v.Minor > min.Minor
	}
	return v.Patch >= min.Patch
}

func (v GitVersion) String() string { return v.Text }

// InstalledGit is the version of the git on PATH, asked once a process
// (`git version`).
var InstalledGit = sync.OnceValues(func() (GitVersion, error) {
	out, err := Git("", "version")
	if err != nil {
		return GitVersion{}, err
	}
	return parseGitVersion(out)
})

// parseGitVersion reads what `git version` prints: "git version " and
// the version (ParseGitVersion).
func parseGitVersion(out string) (GitVersion, error) {
	text, ok := strings.CutPrefix(strings.TrimSpace(out), "git version ")
	if !ok {
		return GitVersion{}, fmt.Errorf("git version says %q, not \"git version X.Y.Z\"", strings.TrimSpace(out))
	}
	return ParseGitVersion(text)
}

// ParseGitVersion reads a version of git: numbers separated by dots
// ("2.36", "2.34.1"), then anything a distribution adds ("2.39.5 (Apple
// Git-154)", "2.45.1.windows.1").
func ParseGitVersion(text string) (GitVersion, error) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return GitVersion{}, fmt.Errorf("%q is not a version of git (X.Y.Z)", text)
	}
	v := GitVersion{Text: strings.TrimSpace(text)}
	numbers := strings.SplitN(fields[0], ".", 4)
	for i, field := range []*int{&v.Major, &v.Minor, &v.Patch} {
		if i >= len(numbers) {
			break
		}
		n, err := strconv.Atoi(numbers[i])
		if err != nil {
			if i == 0 {
				return GitVersion{}, fmt.Errorf("%q is not a version of git (X.Y.Z)", text)
			}
			break // "2.45.rc1": the release candidate of 2.45.0
		}
		*field = n
	}
	return v, nil
}

// TooOldError is something git-queen asks of git that the git on PATH is
// too old for.
type TooOldError struct {
	// Need is the oldest git that can; For says what for ("to fetch
	// again ..."); Have is the git on PATH.
	Need GitVersion
	For  string
	Have GitVersion
}

func (e *TooOldError) Error() string {
	return fmt.Sprintf("git %s or later is needed %s; this is git %s", e.Need, e.For, e.Have)
}

// GitAtLeast says whether the git on PATH is need or newer; true when its
// version cannot be read (git then says what it lacks).
func GitAtLeast(need GitVersion) bool {
	have, err := InstalledGit()
	return err != nil || have.AtLeast(need)
}

// revParseAbsolute runs `git rev-parse --path-format=absolute` with args
// in dir: the paths git names, absolute, or a *TooOldError (absolutePaths).
func revParseAbsolute(dir string, args ...string) (string, error) {
	out, err := Git(dir, append([]string{"rev-parse", "--path-format=absolute"}, args...)...)
	if err != nil {
		return out, err
	}
	return absolutePaths(out)
}

// absolutePaths is the output of `git rev-parse --path-format=absolute`
// (git 2.31), or a *TooOldError: an older git prints an option it does
// not know back as an argument, and its first line is the option, not a
// path (init once made a directory of that name for the hooks).
func absolutePaths(out string) (string, error) {
	if first, _, _ := strings.Cut(out, "\n"); first == "--path-format=absolute" {
		have, _ := InstalledGit()
		return "", &TooOldError{Need: MinimumGit, For: "to read the repository's paths (git rev-parse --path-format=absolute)", Have: have}
	}
	return out, nil
}
