package ledgersync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/redact"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/gitrepo/refs"
	"github.com/git-queen/git-queen/internal/gitrepo/transport"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// Fetching and pushing go through package transport (the git command,
// bounded by the network timeout of timeout.go); the remote has passed
// ResolveRemote. What is decided here is what to retry and what to tell
// the person.

// remoteError is the RemoteError for a fetch or push that failed before
// the remote said anything about the ledger (a *transport.Error), or err.
func remoteError(rm Remote, op string, err error) error {
	failed, ok := errors.AsType[*transport.Error](err)
	if !ok {
		return err
	}
	cause := Unreachable
	if failed.Kind == transport.TimedOut {
		cause = TimedOut
	}
	return &RemoteError{Remote: rm.Shown(), Op: op, Cause: cause, Timeout: failed.After, Msg: failed.Msg}
}

// fetch brings the remote's ledger to its tracking ref and returns the
// commit it points at (zero when the remote has no ledger yet).
func (s *Syncer) fetch(rm Remote) (object.ID, error) {
	if tip, ok := s.upToDate(rm); ok {
		return tip, nil
	}
	return s.fetchWith(rm, transport.Fetch)
}

// refetch fetches the remote's ledger again with every object it reaches
// (transport.Refetch), for a round that found one of them missing here:
// git checks what a fetch brings, so the remote did not lose it; this
// repository did, while a ref of its own still claims it.
func (s *Syncer) refetch(rm Remote) (object.ID, error) {
	return s.fetchWith(rm, transport.Refetch)
}

// fetchWith runs fetch (transport's Fetch or Refetch) with the network
// timeout, and again while another fetch holds the tracking ref's lock.
func (s *Syncer) fetchWith(rm Remote, fetch func(dir, remote, refspec string, limit time.Duration) error) (object.ID, error) {
	limit, err := s.timeout()
	if err != nil {
		return object.ZeroID, err
	}
	var lastErr error
	tracking := ledger.TrackingRef(rm.Arg)
	for attempt := range 4 {
		err := fetch(s.gitDir(), rm.Arg, ledger.SyncRefspec(rm.Arg), limit)
		if err == nil {
			s.ledger.Refresh()
			return s.ledger.Refs().Read(tracking)
		}
		lastErr = remoteError(rm, "fetch", err)
		failed, ok := errors.AsType[*transport.Error](err)
		switch {
		case !ok:
			return object.ZeroID, lastErr
		case strings.HasPrefix(failed.Below, tracking+"/"):
			// A ref below the tracking ref's name (a plain git fetch of a
			// remote that held refs/queen/ledger/x once brought it), which
			// nothing reads, keeps git from writing it: it goes.
			if old, err := s.ledger.Refs().Read(failed.Below); err != nil || s.ledger.Refs().Delete(failed.Below, old) != nil {
				return object.ZeroID, lastErr
			}
		case failed.RefLocked:
			// Another fetch (the user's, with the refspec configured)
			// holds the tracking ref's lock for a moment: try again. A
			// lock a killed fetch left behind goes once it is old enough.
			refs.AwaitLock(s.ledger.Refs().LockPath(tracking))
			sleepJitter(attempt+1, 0)
		case failed.Kind == transport.Unreachable:
			// git fails to fetch a ref the remote lacks. A remote that
			// shows no ledger has none: the fetch brings nothing, and the
			// tracking ref goes, as a fetch that prunes took it. One that
			// shows it now got it since the fetch looked: fetch again.
			_, found, lerr := transport.LsRemote(s.gitDir(), rm.Arg, ledger.Ref, limit)
			if lerr != nil {
				return object.ZeroID, lastErr
			}
			if !found {
				old, err := s.ledger.Refs().Read(tracking)
				if err == nil && !old.IsZero() {
					err = s.ledger.Refs().Delete(tracking, old)
				}
				return object.ZeroID, err
			}
		default:
			return object.ZeroID, lastErr
		}
	}
	return object.ZeroID, lastErr
}

// upToDate answers, for a remote on this machine (a path or a file://
// URL), whether its ledger is the one last fetched, by reading its ref
// file: then there is nothing to fetch, and an idle sync costs no git
// process at all. For any other remote, and whenever in doubt, ok is
// false and git fetches.
func (s *Syncer) upToDate(rm Remote) (object.ID, bool) {
	dir, ok := localGitDir(s.S.WS.Repo, rm, rm.Arg)
	if !ok {
		return object.ZeroID, false
	}
	theirs, ok, err := refs.ReadIn(dir, ledger.Ref)
	if err != nil || !ok || theirs.IsZero() {
		return object.ZeroID, false
	}
	known, err := s.ledger.Refs().Read(ledger.TrackingRef(rm.Arg))
	return known, err == nil && known == theirs
}

// localGitDir is the git directory of the repository on this machine that
// to (rm.Arg, or a URL rm pushes to) names: a path or a file:// URL, a
// configured remote's by its url; a relative path from where git runs
// (../remote.git). ok is false for any other.
func localGitDir(repo *gitrepo.Repo, rm Remote, to string) (string, bool) {
	url := to
	if rm.Configured && to == rm.Arg {
		var ok bool
		if url, ok = repo.LocalConfig("remote." + rm.Arg + ".url"); !ok {
			return "", false
		}
	}
	dir, isFile := strings.CutPrefix(url, "file://")
	if colon := strings.IndexByte(url, ':'); !isFile && !filepath.IsAbs(url) && colon >= 0 && !strings.ContainsRune(url[:colon], '/') {
		return "", false // a network remote: scheme://, or host:path
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(repo.Dir(), dir)
	}
	if info, err := os.Stat(filepath.Join(dir, ".git")); err == nil && info.IsDir() {
		dir = filepath.Join(dir, ".git")
	}
	_, err := os.Stat(filepath.Join(dir, "objects"))
	return dir, err == nil
}

// push publishes commit as the remote's ledger if the remote still has
// expected there (zero: no ledger at all), the compare-and-swap that makes
// one grant out of racing reservations. Pre-push hooks are not run: the
// ledger carries no code, and a hook that runs a test suite would make
// every reservation wait for it. A remote that refuses the ledger is a
// *RemoteError (Refused).
func (s *Syncer) push(rm Remote, commit, expected object.ID) (transport.PushResult, error) {
	limit, err := s.timeout()
	if err != nil {
		return transport.PushResult{}, err
	}
	res, err := transport.Push(s.gitDir(), rm.Arg, commit, ledger.Ref, expected, limit)
	if err != nil {
		return res, remoteError(rm, "push", err)
	}
	if res.Outcome == transport.Refused && res.Refusal == transport.NameTaken {
		return res, &RemoteError{Remote: rm.Shown(), Op: "push", Cause: Blocked, Ref: res.Reason, Msg: fmt.Sprintf(
			"it holds %s, which someone pushed there, and git cannot store %s beside a ref below its name", res.Reason, ledger.Ref)}
	}
	if res.Outcome == transport.Refused {
		msg := rm.Shown() + " refuses refs/queen/ledger: " + refusal(res)
		if res.Said != "" {
			msg += "; the server said: " + res.Said
		}
		return res, &RemoteError{Remote: rm.Shown(), Op: "push", Cause: Refused, Msg: msg}
	}
	return res, nil
}

// refuseAlias refuses a push that creates the remote's ledger or replaces
// one the round set aside when the remote's refs/queen/ledger is a
// symbolic ref (only someone with access to the server's files makes
// one): git there moves the ref it names, and a branch named so shows as
// a ledger set aside, so the push replaced the team's branch with the
// ledger. Only such pushes ask, one exchange more; a push that keeps the
// remote's ledger asks nothing. Each server the push goes to is asked
// (remote.NAME.pushurl). No server shows a symbolic ref to a ref that
// does not exist, and a push through it creates that ref: one on this
// machine is read from its ref file, and after a push that created the
// ledger (created) the servers are asked again, the error then naming the
// ref the push created.
func (s *Syncer) refuseAlias(rm Remote, created bool) error {
	limit, err := s.timeout()
	if err != nil {
		return err
	}
	for _, to := range s.pushTargets(rm) {
		target := ""
		if dir, ok := localGitDir(s.S.WS.Repo, rm, to); ok {
			target = refs.SymrefIn(dir, ledger.Ref)
		}
		if target == "" {
			if target, err = transport.SymrefTarget(s.gitDir(), to, ledger.Ref, limit); err != nil {
				return remoteError(rm, "push", err)
			}
		}
		if target == "" {
			continue
		}
		at, what := "", "which a push there would set to the ledger"
		if to != rm.Arg {
			at = " at " + redact.Password(to)
		}
		if created {
			what = fmt.Sprintf("which did not exist: this push created %s with the ledger (git push %s :%s deletes it)", target, rm.Shown(), target)
		}
		return &RemoteError{Remote: rm.Shown(), Op: "push", Cause: Aliased, Ref: target, Msg: fmt.Sprintf(
			"its %s%s is a symbolic ref to %s, %s", ledger.Ref, at, target, what)}
	}
	return nil
}

// pushTargets is where a push to rm goes, as git ls-remote takes it: each
// remote.NAME.pushurl of a configured remote that has one (git pushes to
// every one), else rm.Arg.
func (s *Syncer) pushTargets(rm Remote) []string {
	if urls := s.S.WS.Repo.ReadConfig().All("remote." + rm.Arg + ".pushurl"); rm.Configured && len(urls) > 0 {
		return urls
	}
	return []string{rm.Arg}
}

// ProbeRef asks remote (a configured name or a URL) which commit it shows
// fetches for ref (a full ref name), with one git ls-remote bounded by
// limit: found is false when it shows none. The error is a *RemoteError
// when the remote could not be reached or did not answer in time. Doctor
// asks it for the ledger; the pre-push check for the branch a push
// replaces when the pre-commit framework did not say.
func ProbeRef(repo *gitrepo.Repo, remote, ref string, limit time.Duration) (tip object.ID, found bool, err error) {
	dir := repo.Dir()
	rm, err := ResolveRemote(repo, remote, dir)
	if err != nil {
		return object.ZeroID, false, err
	}
	tip, found, err = transport.LsRemote(dir, rm.Arg, ref, limit)
	return tip, found, remoteError(rm, "fetch", err)
}
