// Package gitargs is a fixture for the scan of git invocations
// (gitargs_test.go): each line marked "// bad" passes git an argument it
// could read as an option, and must be reported; every other line must
// not be.
package gitargs

import (
	"context"
	"os"
	"os/exec"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

var options = []string{"-c", "gc.auto=0"}

var hostile = []string{"fetch"}

func direct(remote, path, rev string, id plumbing.Hash) {
	gitrepo.Git("", "fetch", remote) // bad
	gitrepo.Git("", "fetch", "--", remote)
	gitrepo.Git("", "rev-parse", "--end-of-options", rev)
	gitrepo.Git("", "config", "--get", "remote."+remote+".url")
	gitrepo.Git("", "log", "--remotes="+remote)
	gitrepo.Git("", "log", "-"+rev) // bad
	gitrepo.Git("", "log", ""+rev)  // bad
	gitrepo.Git("", "push", "--", remote, id.String()+":refs/x")
	gitrepo.Git("", "update-ref", "refs/x", id.String())
	gitrepo.Git("", "-C", path, "status")
	gitrepo.Git("", "status", "-C", path)                               // bad
	gitrepo.GitInput("", "input", "cat-file", rev)                      // bad
	exec.Command("git", "ls-remote", remote)                            // bad
	exec.CommandContext(context.Background(), "git", "ls-remote", path) // bad
	exec.Command("ssh", remote)                                         // another program: not git's business
}

func slices(remote string, heads []string) {
	args := []string{"commit-tree", "-p", remote}
	for _, h := range heads {
		args = append(args, "-p", h)
	}
	args = append(args, "-m", remote, "--", remote)
	gitrepo.Git("", args...)

	bad := []string{"merge"}
	bad = append(bad, remote) // bad
	gitrepo.Git("", bad...)

	gitrepo.Git("", append([]string{"ls-files", "--"}, heads...)...)
	gitrepo.Command{Args: append(append([]string{}, options...), "fetch", "--", remote)}.Run()
	gitrepo.Command{Args: append(hostile, remote)}.Run() // bad
}

// run hands its arguments on to git: its callers are judged.
func run(dir string, args ...string) (string, error) {
	return gitrepo.Command{Dir: dir, Args: append([]string{"-c", "x=y"}, args...)}.Run()
}

// wrap hands its on to run, after a subcommand of its own.
func wrap(args ...string) { run("", append([]string{"config"}, args...)...) }

// forwards hands a slice of its caller's on to git, twice: before "--"
// (so its callers are judged) and after it.
func forwards(paths []string) {
	gitrepo.Git("", append([]string{"ls-files", "--"}, paths...)...)
	gitrepo.Git("", append([]string{"ls-files", "-z"}, paths...)...)
}

func callers(name string, more []string) {
	run("", "fetch", "--", name)
	run("", "fetch", name) // bad
	wrap("--get", "remote."+name+".url")
	wrap("--local", name, "x") // bad
	run("", more...)
	forwards([]string{"a", "--", name})
	forwards(os.Args)              // bad
	forwards(strings.Fields(name)) // bad
}

// main-like code: what reaches callers' more is judged here.
func entry() { callers("origin", []string{"--get", os.Args[0]}) } // bad
