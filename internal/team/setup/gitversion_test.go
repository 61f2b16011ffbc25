package setup

import (
	"errors"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

func TestGitCheckJudgesTheVersion(t *testing.T) {
	for _, tc := range []struct {
		have   gitrepo.GitVersion
		err    error
		status Status
		says   string
	}{
		{have: gitrepo.GitVersion{Major: 2, Minor: 39, Patch: 5, Text: "2.39.5"}, status: OK, says: "git 2.39.5"},
		{have: gitrepo.GitVersion{Major: 2, Minor: 36, Text: "2.36.0"}, status: OK, says: "git 2.36.0"},
		{have: gitrepo.GitVersion{Major: 2, Minor: 34, Patch: 1, Text: "2.34.1"}, status: OK, says: "git 2.34.1"},
		{have: gitrepo.GitVersion{Major: 2, Minor: 31, Text: "2.31.0"}, status: OK, says: "git 2.31.0"},
		{have: gitrepo.GitVersion{Major: 2, Minor: 30, Patch: 2, Text: "2.30.2"}, status: Fail,
			says: "git 2.30.2 is too old: git-queen needs git 2.31 or later"},
		{err: errors.New("exec: \"git\": executable file not found in $PATH"), status: Warn, says: "cannot tell which git this is: exec:"},
	} {
		c := gitCheck(tc.have, tc.err)
		if c.Name != "git" || c.Status != tc.status || !strings.Contains(c.Message, tc.says) {
			t.Errorf("git %s (%v): %+v; want %s saying %q", tc.have, tc.err, c, tc.status, tc.says)
		}
	}
}

// doctor names the git on PATH, as git itself says it.
func TestDoctorNamesTheGitOnPath(t *testing.T) {
	r := newRepo(t)
	have, err := gitrepo.InstalledGit()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Checks(Options{}) {
		if c.Name == "git" {
			if !strings.HasPrefix(c.Message, "git "+have.Text) || c.Status != gitCheck(have, nil).Status {
				t.Fatalf("doctor's git check with git %s: %+v", have, c)
			}
			return
		}
	}
	t.Fatal("doctor has no git check")
}
