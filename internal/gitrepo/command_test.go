package gitrepo_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A bounded command that outlives its time is stopped with everything it
// started (here git's shell alias and the sleep under it), and says so.
func TestCommandTimeoutKillsTheGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see the child")
	}
	testgit.Isolate(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	alias := "alias.hang=!echo $$ > " + pidFile + "; exec sleep 600"
	_, err := gitrepo.Command{Args: []string{"-c", alias, "hang"}, Timeout: 300 * time.Millisecond}.Run()
	var timeout *gitrepo.TimeoutError
	var failed *gitrepo.CommandError
	if !errors.As(err, &timeout) || !errors.As(err, &failed) || !gitrepo.IsTimeout(err) ||
		!strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("a command that hangs: %v", err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the alias never ran: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command's child %d still runs: %s", pid, stat)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Within its time, a bounded command is an ordinary one.
	out, err := gitrepo.Command{Args: []string{"--version"}, Timeout: time.Minute}.Run()
	if err != nil || !strings.HasPrefix(out, "git version") {
		t.Errorf("git --version, bounded: %q, %v", out, err)
	}
	_, err = gitrepo.Command{Args: []string{"no-such-command"}, Timeout: time.Minute}.Run()
	if err == nil || gitrepo.IsTimeout(err) || !strings.Contains(err.Error(), "no-such-command") {
		t.Errorf("a failing bounded command: %v", err)
	}
}

func TestRefuseOption(t *testing.T) {
	for _, v := range []string{"-x", "--upload-pack=x", "-"} {
		var opt *gitrepo.OptionError
		if err := gitrepo.RefuseOption("remote", v); !errors.As(err, &opt) || !strings.Contains(err.Error(), "starts with '-'") {
			t.Errorf("RefuseOption(%q) = %v", v, err)
		}
	}
	for _, v := range []string{"origin", "", "a-b", "x--y"} {
		if err := gitrepo.RefuseOption("remote", v); err != nil {
			t.Errorf("RefuseOption(%q) = %v", v, err)
		}
	}
}

// A failed command with a huge command line (rev-list of every tip of a
// remote with 50,000 tags) must not make an error of megabytes.
func TestCommandErrorShowsALongCommandLineCut(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"short", []string{"rev-list", "--not", "abc"}, "git rev-list --not abc: fatal: bad"},
		{"long", append([]string{"rev-list", "--not"}, slices.Repeat([]string{strings.Repeat("f", 40)}, 50000)...),
			"git rev-list --not " + strings.TrimSuffix(strings.Repeat(strings.Repeat("f", 40)+" ", 9), " ") + " ... (50002 arguments): fatal: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := &gitrepo.CommandError{Args: tt.args, Stderr: "fatal: bad", Err: errors.New("exit status 128")}
			if got := err.Error(); got != tt.want {
				t.Errorf("Error() = %.200q (%d bytes), want %q", got, len(got), tt.want)
			}
		})
	}
}
