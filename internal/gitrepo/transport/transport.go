// Package transport runs git's fetch, push and ls-remote against a
// remote and reads what git answers: a typed outcome for a push with a
// lease (pushed, lost a race, try again, objects missing here, refused
// with the server's words) and a typed *Error for a remote that could not
// be reached or did not answer in time. It goes through the git command,
// so that the user's remotes, credentials, proxies and protocols work
// unchanged; every run is bounded, and a run that times out is killed
// with every helper it started (gitrepo.Command). The remote and every
// ref always come after "--": what to retry and what to tell a person is
// the caller's business.
package transport

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// gitOptions come before every command: no automatic maintenance after
// it (it would cost more than the transfer), and no walk of the history
// to report forced updates.
var gitOptions = []string{"-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "fetch.showForcedUpdates=false"}

// run runs git in dir with gitOptions, within limit, never prompting, and
// returns stdout, and stderr in the error.
func run(dir string, limit time.Duration, args ...string) (stdout, stderr string, err error) {
	return runEnv(dir, limit, nil, args...)
}

// runEnv is run with env added to git's environment.
func runEnv(dir string, limit time.Duration, env []string, args ...string) (stdout, stderr string, err error) {
	out, err := gitrepo.Command{Dir: dir, Args: append(append([]string{}, gitOptions...), args...),
		Env: append([]string{"GIT_TERMINAL_PROMPT=0"}, env...), Timeout: limit}.Run()
	if failed, ok := errors.AsType[*gitrepo.CommandError](err); ok {
		return out, failed.Stderr, failed.Err
	}
	return out, "", err
}

// Kind is why an exchange with a remote failed.
type Kind int

const (
	// Unreachable: git could not reach the remote, or was turned away at
	// the door (no such repository, failed authentication).
	Unreachable Kind = iota
	// TimedOut: the remote did not answer within the limit; git and its
	// helpers were killed.
	TimedOut
)

// Error is a fetch, push or ls-remote that failed before the remote said
// anything about the refs: Msg is the first lines of what git said.
type Error struct {
	Kind Kind
	Msg  string
	// After is the limit that ran out (TimedOut).
	After time.Duration
	// RefLocked: the fetch found a ref it writes locked here (another
	// fetch holds it for a moment, or a killed one left the lock).
	RefLocked bool
	// Below is, when a ref here below the name of one the fetch writes
	// keeps git from writing it, that ref.
	Below string
}

func (e *Error) Error() string { return e.Msg }

// failure is the *Error for a run that failed with err and stderr.
func failure(stderr string, err error) *Error {
	if timeout, ok := errors.AsType[*gitrepo.TimeoutError](err); ok {
		return &Error{Kind: TimedOut, After: timeout.After, Msg: fmt.Sprintf("no answer within %s, so git was stopped", timeout.After)}
	}
	_, locked, _ := strings.Cut(stderr, "cannot lock ref '")
	written, _, _ := strings.Cut(locked, "'")
	return &Error{Kind: Unreachable, Msg: firstLines(stderr, err), RefLocked: strings.Contains(stderr, "cannot lock ref"),
		Below: refBelow(stderr, written)}
}

// Fetch brings refspec from remote into the repository at dir, within
// limit: quietly, without tags, FETCH_HEAD or submodules, pruning what the
// refspec no longer finds there. The error is an *Error.
func Fetch(dir, remote, refspec string, limit time.Duration) error {
	return fetch(dir, remote, refspec, limit)
}

func fetch(dir, remote, refspec string, limit time.Duration, options ...string) error {
	if stderr, err := runFetch(dir, "", remote, refspec, limit, options...); err != nil {
		return failure(stderr, err)
	}
	return nil
}

// runFetch runs Fetch's git fetch with options, and returns git's stderr
// and run's error. objects, when set, is the object directory git writes
// to instead of the repository's (GIT_OBJECT_DIRECTORY), where what comes
// stays a pack (fetch.unpackLimit=1; it would be loose objects below 100).
func runFetch(dir, objects, remote, refspec string, limit time.Duration, options ...string) (stderr string, err error) {
	var env, args []string
	if objects != "" {
		env = []string{"GIT_OBJECT_DIRECTORY=" + objects}
		args = []string{"-c", "fetch.unpackLimit=1"}
	}
	args = append(args, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune", "--no-recurse-submodules")
	args = append(args, options...)
	args = append(args, "--", remote, refspec)
	_, stderr, err = runEnv(dir, limit, env, args...)
	return stderr, err
}

// LsRemote asks remote, within limit, which commit it shows for ref:
// found is false when it shows none. The error is an *Error.
func LsRemote(dir, remote, ref string, limit time.Duration) (id plumbing.Hash, found bool, err error) {
	out, stderr, err := run(dir, limit, "ls-remote", "--", remote, ref)
	if err != nil {
		return plumbing.ZeroHash, false, failure(stderr, err)
	}
	for line := range strings.Lines(out) {
		id, name, _ := strings.Cut(strings.TrimSpace(line), "\t")
		if name == ref && plumbing.IsHash(id) {
			return plumbing.NewHash(id), true, nil
		}
	}
	return plumbing.ZeroHash, false, nil
}

// Tips asks remote, within limit, for the commits its branches and tags
// show (an annotated tag's commit too). The error is an *Error.
func Tips(dir, remote string, limit time.Duration) ([]string, error) {
	out, stderr, err := run(dir, limit, "ls-remote", "--heads", "--tags", "--", remote)
	if err != nil {
		return nil, failure(stderr, err)
	}
	var ids []string
	for line := range strings.Lines(out) {
		if id, _, _ := strings.Cut(line, "\t"); plumbing.IsHash(id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// SymrefTarget asks remote, within limit, whether ref is a symbolic ref
// there, and returns the ref it names ("" when it is none): a push to it
// moves that ref. A server that speaks only protocol v0 names the target
// of HEAD alone, and no server shows a symbolic ref to a ref that does
// not exist (it lists refs that resolve): for them the answer is "". The
// error is an *Error.
func SymrefTarget(dir, remote, ref string, limit time.Duration) (string, error) {
	out, stderr, err := run(dir, limit, "ls-remote", "--symref", "--", remote, ref)
	if err != nil {
		return "", failure(stderr, err)
	}
	for line := range strings.Lines(out) {
		if target, name, _ := strings.Cut(strings.TrimSpace(line), "\t"); name == ref && strings.HasPrefix(target, "ref: ") {
			return strings.TrimPrefix(target, "ref: "), nil
		}
	}
	return "", nil
}

// firstLines is what a person needs of git's stderr: its first lines
// (err's message when git said nothing).
func firstLines(stderr string, err error) string {
	if stderr == "" {
		if err != nil {
			return err.Error()
		}
		return "git failed without a message"
	}
	var lines []string
	for line := range strings.Lines(stderr) {
		if line = strings.TrimSpace(line); line != "" && len(lines) < 3 {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "; ")
}
