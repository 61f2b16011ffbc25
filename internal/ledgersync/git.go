package ledgersync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/ledger"
)

// Fetching and pushing go through the git command, so that the user's
// remotes, credentials, proxies and protocols work unchanged. Both turn off
// git's automatic maintenance, which would otherwise run after them and
// cost a sync more than the transfer itself. Each is bounded by the
// network timeout (see timeout.go), and the remote always comes after
// "--", having passed ResolveRemote.

// gitOptions come before every git command sync runs: no maintenance
// after it, and no walk of the history to report forced updates.
var gitOptions = []string{"-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "fetch.showForcedUpdates=false"}

// runGit runs git in dir with sync's options, within limit, and returns
// stdout, and stderr in the error.
func runGit(dir string, limit time.Duration, args ...string) (string, string, error) {
	out, err := gitrepo.Command{Dir: dir, Args: append(append([]string{}, gitOptions...), args...),
		Env: []string{"GIT_TERMINAL_PROMPT=0"}, Timeout: limit}.Run()
	var failed *gitrepo.CommandError
	if errors.As(err, &failed) {
		return out, failed.Stderr, failed.Err
	}
	return out, "", err
}

// networkError is the RemoteError for a fetch or push that failed before
// the remote said anything about the ledger.
func networkError(rm Remote, op, stderr string, err error) *RemoteError {
	var timeout *gitrepo.TimeoutError
	if errors.As(err, &timeout) {
		return &RemoteError{Remote: rm.Arg, Op: op, Cause: TimedOut, Timeout: timeout.After,
			Msg: fmt.Sprintf("no answer within %s, so git was stopped", timeout.After)}
	}
	return &RemoteError{Remote: rm.Arg, Op: op, Cause: Unreachable, Msg: firstLines(stderr, err)}
}

// fetch brings the remote's ledger to its tracking ref and returns the
// commit it points at (zero when the remote has no ledger yet).
func (s *Syncer) fetch(rm Remote) (plumbing.Hash, error) {
	if tip, ok := s.upToDate(rm); ok {
		return tip, nil
	}
	limit, err := s.timeout()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var lastErr error
	for attempt := range 4 {
		_, stderr, err := runGit(s.gitDir(), limit, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune",
			"--no-recurse-submodules", "--", rm.Arg, ledger.FetchRefspec(rm.Arg))
		if err == nil {
			s.ledger.Refresh()
			return s.ledger.ReadRef(ledger.TrackingRef(rm.Arg))
		}
		lastErr = networkError(rm, "fetch", stderr, err)
		// Another fetch (the user's, with the refspec configured) holds
		// the tracking ref's lock for a moment: try again. A lock a killed
		// fetch left behind goes once it is old enough.
		if !strings.Contains(stderr, "cannot lock ref") {
			break
		}
		ledger.AwaitLock(s.ledger.LockPath(ledger.TrackingRef(rm.Arg)))
		sleepJitter(attempt+1, 0)
	}
	return plumbing.ZeroHash, lastErr
}

// upToDate answers, for a remote on this machine (a path or a file://
// URL), whether its ledger is the one last fetched, by reading its ref
// file: then there is nothing to fetch, and an idle sync costs no git
// process at all. For any other remote, and whenever in doubt, ok is
// false and git fetches.
func (s *Syncer) upToDate(rm Remote) (plumbing.Hash, bool) {
	url := rm.Arg
	if rm.Configured {
		var ok bool
		if url, ok = s.S.WS.Repo.LocalConfig("remote." + rm.Arg + ".url"); !ok {
			return plumbing.ZeroHash, false
		}
	}
	dir, isFile := strings.CutPrefix(url, "file://")
	if !isFile && (strings.Contains(url, "://") || !filepath.IsAbs(url)) {
		return plumbing.ZeroHash, false // a network remote, or a relative path
	}
	if info, err := os.Stat(filepath.Join(dir, ".git")); err == nil && info.IsDir() {
		dir = filepath.Join(dir, ".git")
	}
	if _, err := os.Stat(filepath.Join(dir, "objects")); err != nil {
		return plumbing.ZeroHash, false
	}
	theirs, ok, err := ledger.ReadRefIn(dir, ledger.Ref)
	if err != nil || !ok || theirs.IsZero() {
		return plumbing.ZeroHash, false
	}
	known, err := s.ledger.ReadRef(ledger.TrackingRef(rm.Arg))
	return known, err == nil && known == theirs
}

// pushOutcome is what a push of the ledger came to.
type pushOutcome int

const (
	pushed pushOutcome = iota
	// lostRace: the remote's ledger moved since it was fetched.
	lostRace
	// pushAgain: the remote failed to take the push for a passing reason
	// of its own, and its ledger did not move: nothing was published.
	pushAgain
	// objectsMissing: git here could not pack what the push needs, because
	// this repository lacks an object the local ledger names (a git gc
	// --prune=now that ran during an earlier sync pruned it). Nothing was
	// published; the ledger is rebuilt from the live store and pushed again.
	objectsMissing
)

// lacksObjects reports whether git's stderr from a push says this
// repository (not the server: its lines begin "remote:") could not read an
// object the pushed commit needs.
func lacksObjects(stderr string) bool {
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		for _, said := range []string{"fatal: bad tree object", "fatal: bad blob object", "fatal: bad object",
			"fatal: unable to read", "error: unable to read", "fatal: missing blob object", "fatal: missing tree object"} {
			if strings.HasPrefix(line, said) {
				return true
			}
		}
	}
	return false
}

// push publishes commit as the remote's ledger if the remote still has
// expected there (zero: no ledger at all), the compare-and-swap that makes
// one grant out of racing reservations. Pre-push hooks are not run: the
// ledger carries no code, and a hook that runs a test suite would make
// every reservation wait for it.
//
// For pushAgain it also returns what the server said, for the message of
// a sync that gives up.
func (s *Syncer) push(rm Remote, commit, expected plumbing.Hash) (pushOutcome, string, error) {
	limit, err := s.timeout()
	if err != nil {
		return 0, "", err
	}
	lease := ledger.Ref + ":"
	if !expected.IsZero() {
		lease += expected.String()
	}
	stdout, stderr, err := runGit(s.gitDir(), limit, "push", "--porcelain", "--no-verify", "--force-with-lease="+lease,
		"--", rm.Arg, commit.String()+":"+ledger.Ref)
	if err == nil {
		return pushed, "", nil
	}
	if gitrepo.IsTimeout(err) {
		return 0, "", networkError(rm, "push", stderr, err)
	}
	if lacksObjects(stderr) {
		return objectsMissing, firstLines(stderr, nil), nil
	}
	for line := range strings.Lines(stdout) {
		if !strings.HasPrefix(line, "!") {
			continue
		}
		if strings.Contains(line, "stale info") || strings.Contains(line, "fetch first") || strings.Contains(line, "non-fast-forward") {
			return lostRace, "", nil
		}
		// The server checked the old value under its ref lock and found
		// another push had won since it advertised the ref.
		if strings.Contains(line, "remote rejected") && strings.Contains(stderr, "cannot lock ref") &&
			(strings.Contains(stderr, "but expected") || strings.Contains(stderr, "reference already exists")) {
			return lostRace, "", nil
		}
		// A receive-pack that lost a race with another to lock the ref, or
		// to move the same objects out of its quarantine (seen under 8
		// concurrent pushes to git daemon): nothing was published, and
		// trying again is safe.
		if strings.Contains(line, "remote rejected") && (strings.Contains(line, "unable to migrate objects") ||
			strings.Contains(line, "failed to lock") || strings.Contains(stderr, "cannot lock ref")) {
			return pushAgain, firstLines(line[1:]+"\n"+stderr, nil), nil
		}
		reason := strings.TrimSpace(line[strings.LastIndexByte(line, '\t')+1:])
		if r, ok := strings.CutPrefix(reason, "[remote rejected]"); ok {
			msg := rm.Arg + " refuses refs/queen/ledger: " + refusal(strings.Trim(strings.TrimSpace(r), "()"), stderr)
			if said := serverSaid(stderr); said != "" {
				msg += "; the server said: " + said
			}
			return 0, "", &RemoteError{Remote: rm.Arg, Op: "push", Cause: Refused, Msg: msg}
		}
		msg := reason
		if stderr != "" {
			msg += "; " + firstLines(stderr, nil)
		}
		return 0, "", &RemoteError{Remote: rm.Arg, Op: "push", Cause: Unreachable, Msg: msg}
	}
	return 0, "", networkError(rm, "push", stderr, err)
}

// firstLines is what a person needs of git's stderr: its first lines.
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

// ProbeRemote asks remote (a configured name or a URL) which ledger it
// shows fetches, with one git ls-remote bounded by limit: found is false
// when it shows none. The error is a *RemoteError when the remote could
// not be reached or did not answer in time.
func ProbeRemote(repo *gitrepo.Repo, remote string, limit time.Duration) (tip plumbing.Hash, found bool, err error) {
	dir := repo.TopLevel
	if dir == "" {
		dir = repo.GitDir
	}
	rm, err := ResolveRemote(repo, remote, dir)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	out, stderr, err := runGit(dir, limit, "ls-remote", "--", rm.Arg, ledger.Ref)
	if err != nil {
		return plumbing.ZeroHash, false, networkError(rm, "fetch", stderr, err)
	}
	for line := range strings.Lines(out) {
		id, ref, _ := strings.Cut(strings.TrimSpace(line), "\t")
		if ref == ledger.Ref && plumbing.IsHash(id) {
			return plumbing.NewHash(id), true, nil
		}
	}
	return plumbing.ZeroHash, false, nil
}
