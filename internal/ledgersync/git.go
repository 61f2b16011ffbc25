package ledgersync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/ledger"
)

// Fetching and pushing go through the git command, so that the user's
// remotes, credentials, proxies and protocols work unchanged. Both turn off
// git's automatic maintenance, which would otherwise run after them and
// cost a sync more than the transfer itself.

// gitOptions come before every git command sync runs: no maintenance
// after it, and no walk of the history to report forced updates.
var gitOptions = []string{"-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "fetch.showForcedUpdates=false"}

// RemoteError is a remote that could not be reached or refused the ledger.
type RemoteError struct {
	Remote string
	Op     string // "fetch" or "push"
	Msg    string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("cannot %s the ledger %s %s: %s", e.Op, map[string]string{"fetch": "from", "push": "to"}[e.Op], e.Remote, e.Msg)
}

// runGit runs git in dir with sync's options and returns stdout, and
// stderr in the error.
func runGit(dir string, args ...string) (string, string, error) {
	out, err := gitrepo.Command{Dir: dir, Args: append(append([]string{}, gitOptions...), args...),
		Env: []string{"GIT_TERMINAL_PROMPT=0"}}.Run()
	var failed *gitrepo.CommandError
	if errors.As(err, &failed) {
		return out, failed.Stderr, failed.Err
	}
	return out, "", err
}

// fetch brings the remote's ledger to its tracking ref and returns the
// commit it points at (zero when the remote has no ledger yet).
func (s *Syncer) fetch(remote string) (plumbing.Hash, error) {
	if tip, ok := s.upToDate(remote); ok {
		return tip, nil
	}
	var lastErr error
	for attempt := range 4 {
		_, stderr, err := runGit(s.gitDir(), "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune",
			"--no-recurse-submodules", remote, ledger.FetchRefspec(remote))
		if err == nil {
			s.ledger.Refresh()
			return s.ledger.ReadRef(ledger.TrackingRef(remote))
		}
		lastErr = &RemoteError{Remote: remote, Op: "fetch", Msg: firstLines(stderr, err)}
		// Another fetch (the user's, with the refspec configured) holds
		// the tracking ref's lock for a moment: try again. A lock a killed
		// fetch left behind goes once it is old enough.
		if !strings.Contains(stderr, "cannot lock ref") {
			break
		}
		ledger.AwaitLock(s.ledger.LockPath(ledger.TrackingRef(remote)))
		sleepJitter(attempt + 1)
	}
	return plumbing.ZeroHash, lastErr
}

// upToDate answers, for a remote on this machine (a path or a file://
// URL), whether its ledger is the one last fetched, by reading its ref
// file: then there is nothing to fetch, and an idle sync costs no git
// process at all. For any other remote, and whenever in doubt, ok is
// false and git fetches.
func (s *Syncer) upToDate(remote string) (plumbing.Hash, bool) {
	url, ok := s.S.WS.Repo.LocalConfig("remote." + remote + ".url")
	if !ok {
		return plumbing.ZeroHash, false
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
	known, err := s.ledger.ReadRef(ledger.TrackingRef(remote))
	return known, err == nil && known == theirs
}

// pushOutcome is what a push of the ledger came to.
type pushOutcome int

const (
	pushed pushOutcome = iota
	// lostRace: the remote's ledger moved since it was fetched.
	lostRace
)

// push publishes commit as the remote's ledger if the remote still has
// expected there (zero: no ledger at all), the compare-and-swap that makes
// one grant out of racing reservations. Pre-push hooks are not run: the
// ledger carries no code, and a hook that runs a test suite would make
// every reservation wait for it.
func (s *Syncer) push(remote string, commit, expected plumbing.Hash) (pushOutcome, error) {
	lease := ledger.Ref + ":"
	if !expected.IsZero() {
		lease += expected.String()
	}
	stdout, stderr, err := runGit(s.gitDir(), "push", "--porcelain", "--no-verify", "--force-with-lease="+lease,
		remote, commit.String()+":"+ledger.Ref)
	if err == nil {
		return pushed, nil
	}
	for line := range strings.Lines(stdout) {
		if !strings.HasPrefix(line, "!") {
			continue
		}
		if strings.Contains(line, "stale info") || strings.Contains(line, "fetch first") || strings.Contains(line, "non-fast-forward") {
			return lostRace, nil
		}
		// The server checked the old value under its ref lock and found
		// another push had won since it advertised the ref.
		if strings.Contains(line, "remote rejected") && strings.Contains(stderr, "cannot lock ref") &&
			(strings.Contains(stderr, "but expected") || strings.Contains(stderr, "reference already exists")) {
			return lostRace, nil
		}
		// A receive-pack that lost a race with another to move the same
		// objects out of its quarantine (seen under 8 concurrent pushes to
		// git daemon): nothing was published, and trying again is safe,
		// as after a lost race.
		if strings.Contains(line, "remote rejected") && strings.Contains(line, "unable to migrate objects") {
			return lostRace, nil
		}
		msg := strings.TrimSpace(line[strings.LastIndexByte(line, '\t')+1:])
		if stderr != "" {
			msg += "; " + firstLines(stderr, nil)
		}
		return 0, &RemoteError{Remote: remote, Op: "push", Msg: msg}
	}
	return 0, &RemoteError{Remote: remote, Op: "push", Msg: firstLines(stderr, err)}
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

// IsRemoteError reports whether err is a remote that could not be reached
// or refused the ledger.
func IsRemoteError(err error) bool {
	var re *RemoteError
	return errors.As(err, &re)
}
