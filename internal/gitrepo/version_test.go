package gitrepo

import (
	"errors"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

func TestParseGitVersion(t *testing.T) {
	for _, tc := range []struct {
		out                 string
		major, minor, patch int
		text                string
		bad                 bool
	}{
		{out: "git version 2.34.1\n", major: 2, minor: 34, patch: 1, text: "2.34.1"},
		{out: "git version 2.39.5", major: 2, minor: 39, patch: 5, text: "2.39.5"},
		{out: "git version 2.39.5 (Apple Git-154)\n", major: 2, minor: 39, patch: 5, text: "2.39.5 (Apple Git-154)"},
		{out: "git version 2.45.1.windows.1\n", major: 2, minor: 45, patch: 1, text: "2.45.1.windows.1"},
		{out: "git version 2.36.0.rc2\n", major: 2, minor: 36, text: "2.36.0.rc2"},
		{out: "git version 2.47.GIT\n", major: 2, minor: 47, text: "2.47.GIT"},
		{out: "git version 3.0\n", major: 3, text: "3.0"},
		{out: "hub version 2.14\n", bad: true},
		{out: "git version two\n", bad: true},
		{out: "git version 2\n", major: 2, text: "2"},
		{out: "", bad: true},
	} {
		v, err := parseGitVersion(tc.out)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: read as %+v, want an error", tc.out, v)
			}
			continue
		}
		if err != nil || v.Major != tc.major || v.Minor != tc.minor || v.Patch != tc.patch || v.Text != tc.text {
			t.Errorf("%q: %+v, %v; want %d.%d.%d %q", tc.out, v, err, tc.major, tc.minor, tc.patch, tc.text)
		}
	}
}

func TestGitVersionAtLeast(t *testing.T) {
	for _, tc := range []struct {
		have, need GitVersion
		ok         bool
	}{
		{GitVersion{Major: 2, Minor: 34, Patch: 1}, RefetchGit, false},
		{GitVersion{Major: 2, Minor: 35, Patch: 9}, RefetchGit, false},
		{GitVersion{Major: 2, Minor: 36}, RefetchGit, true},
		{GitVersion{Major: 2, Minor: 39, Patch: 5}, RefetchGit, true},
		{GitVersion{Major: 3}, RefetchGit, true},
		{GitVersion{Major: 1, Minor: 99}, MinimumGit, false},
		{GitVersion{Major: 2, Minor: 30, Patch: 2}, MinimumGit, false},
		{GitVersion{Major: 2, Minor: 31}, MinimumGit, true},
	} {
		if got := tc.have.AtLeast(tc.need); got != tc.ok {
			t.Errorf("%d.%d.%d at least %s: %v, want %v", tc.have.Major, tc.have.Minor, tc.have.Patch, tc.need, got, tc.ok)
		}
	}
}

// The git on PATH is read as git says it, GitAtLeast compares it, and a
// git older than what is needed is named in the error, with both versions.
func TestGitAtLeastReadsTheGitOnPath(t *testing.T) {
	testgit.Isolate(t)
	have, err := InstalledGit()
	if err != nil {
		t.Fatal(err)
	}
	if says := strings.TrimSpace(testgit.Run(t, "", "version")); says != "git version "+have.Text {
		t.Fatalf("git says %q, read as %+v", says, have)
	}
	if !GitAtLeast(have) {
		t.Fatalf("git %s is not enough for itself", have)
	}
	newer := GitVersion{Major: have.Major, Minor: have.Minor + 1, Text: "newer"}
	if GitAtLeast(newer) {
		t.Fatalf("git %s is taken for %+v", have, newer)
	}
	if err := (&TooOldError{Need: newer, For: "for a test", Have: have}); err.Error() != "git newer or later is needed for a test; this is git "+have.Text {
		t.Fatalf("requiring a newer git: %v", err)
	}
}

// git before 2.31 prints --path-format=absolute back as an argument it
// does not know: that is a git too old, never a path.
func TestAbsolutePathsRefuseAGitThatEchoesTheOption(t *testing.T) {
	for _, tc := range []struct {
		out    string
		tooOld bool
	}{
		{out: "/r/.git/hooks\n"},
		{out: "/r/.git\n/r/.git\ntrue\nfalse\n"},
		{out: "--path-format=absolute\n.git/hooks\n", tooOld: true},
		{out: "--path-format=absolute\n.git\n.git\ntrue\nfalse\n", tooOld: true},
		{out: "/r/--path-format=absolute/hooks\n"},
	} {
		got, err := absolutePaths(tc.out)
		if _, isTooOld := errors.AsType[*TooOldError](err); isTooOld != tc.tooOld || !tc.tooOld && got != tc.out {
			t.Errorf("%q: %q, %v; want too old %v", tc.out, got, err, tc.tooOld)
		}
	}
}

// With a git older than 2.31 first on PATH, where the hooks go is that
// git's fault to tell, not a directory named after the option.
func TestHooksDirWithAGitBefore231(t *testing.T) {
	testgit.Isolate(t)
	have, err := InstalledGit()
	if err != nil || have.AtLeast(MinimumGit) {
		t.Skipf("git %s has rev-parse --path-format (%v)", have, err)
	}
	r, err := Discover(testgit.Init(t))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := r.HooksDir()
	if want := "git 2.31 or later is needed to read the repository's paths (git rev-parse --path-format=absolute); this is git " + have.Text; err == nil || err.Error() != want {
		t.Fatalf("HooksDir with git %s: %q, %v; want %q", have, dir, err, want)
	}
}
