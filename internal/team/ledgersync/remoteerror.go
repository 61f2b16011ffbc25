package ledgersync

import (
	"errors"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/redact"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/gitrepo/transport"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// Cause is why an exchange with a remote failed, which decides what the
// person is told to do.
type Cause string

// The causes of a RemoteError.
const (
	// Unreachable: git could not reach the remote or was refused at the
	// door (no such repository, failed authentication). Retrying later
	// may work.
	Unreachable Cause = "unreachable"
	// TimedOut: the remote did not finish within the limit.
	TimedOut Cause = "timeout"
	// Refused: the remote was reached and refused to store the ledger (a
	// hook, receive.hideRefs, an access rule). Retrying will not help.
	Refused Cause = "refused"
	// Blocked: the remote holds a ref below refs/queen/ledger's name
	// (someone pushed refs/queen/ledger/x), so git there cannot store the
	// ledger until that ref is deleted. Retrying will not help.
	Blocked Cause = "blocked"
	// Aliased: the remote's refs/queen/ledger is a symbolic ref to
	// another ref (Ref), which a push would move instead. Retrying will
	// not help.
	Aliased Cause = "symref"
	// Split: the remote pushes to another URL than it fetches from
	// (remote.NAME.pushurl, a fork), and what is pushed there never shows
	// in its fetches. Retrying will not help.
	Split Cause = "split"
	// Hidden: pushes find the remote's ledger moved, but fetches never
	// show it (uploadpack.hideRefs, a read rule).
	Hidden Cause = "hidden"
)

// RemoteError is a remote that could not be reached or refused the ledger.
type RemoteError struct {
	Remote string
	Op     string // "fetch" or "push"
	Msg    string
	Cause  Cause
	// Timeout is the limit that ran out (TimedOut only).
	Timeout time.Duration
	// Again says that a sync run again may succeed (other clones kept
	// winning the race to push).
	Again bool
	// Ref is, for Blocked, the ref below the ledger's name; for Aliased,
	// the ref the ledger's names.
	Ref string
}

func (e *RemoteError) Error() string { return e.Text().String() }

// Text is the error's message, and what to do about it in the words of the
// front end that shows it.
func (e *RemoteError) Text() wording.Text {
	prep := map[string]string{"fetch": "from", "push": "to"}[e.Op]
	msg := wording.Textf("cannot %s the ledger %s %s: %s", e.Op, prep, e.Remote, e.Msg)
	if e.Again {
		msg = wording.Textf("%v; run %v again", msg, wording.Run("sync"))
	}
	if hint := e.hint(); !hint.IsZero() {
		msg = wording.Textf("%v\n%v", msg, hint)
	}
	return msg
}

// hint is what to do about the failure, for each cause that has a fix of
// its own.
func (e *RemoteError) hint() wording.Text {
	switch e.Cause {
	case TimedOut:
		return wording.Textf("check that %s answers (git ls-remote %s), or allow longer than %s: "+
			"git config queen.timeout 2m (or QUEEN_TIMEOUT=2m for one command)", e.Remote, e.Remote, e.Timeout)
	case Refused:
		return wording.Textf("%s%v", refusedFix, wording.CommandLineOnly(wording.Textf(
			". Until then, %v holds paths on this machine only", wording.Run("reserve", "offline"))))
	case Hidden:
		return wording.Textf("%s; if the remote is a mirror that lags behind pushes, run %v again", hiddenFix, wording.Run("sync"))
	case Aliased:
		return wording.Textf("only someone with access to the server's files makes one: there, run git symbolic-ref --delete %s "+
			"(a git push %s :%s would delete %s), then %v", ledger.Ref, e.Remote, ledger.Ref, e.Ref, wording.Run("sync"))
	case Split:
		return wording.Textf("the ledger must be fetched from and pushed to one repository, the team's: add a remote that does both " +
			"(git remote add team URL), then git queen init --remote team")
	case Blocked:
		return wording.Textf("nothing reads that ref: delete it (git push %s :%s), then %v%v", e.Remote, e.Ref, wording.Run("sync"),
			wording.CommandLineOnly(wording.Textf(". Until then, %v holds paths on this machine only", wording.Run("reserve", "offline"))))
	}
	return wording.Text{}
}

// RefusedFix says how to let a server accept refs/queen/ledger, in the
// command line's words (for doctor).
const RefusedFix = refusedFix + ". Until then, git queen reserve --offline holds paths on this machine only"

const refusedFix = "the server must let git-queen write refs/queen/*: with gitolite, add a rule such as " +
	"'RW+ refs/queen/ = @team' to the repository; a pre-receive or update hook must let refs/queen/ through; " +
	"receive.hideRefs (or transfer.hideRefs) on the server must not cover refs/queen"

// HiddenFix says how to let a server show refs/queen/ledger to fetches,
// in the command line's words (for doctor).
const HiddenFix = hiddenFix + "; if the remote is a mirror that lags behind pushes, run git queen sync again"

const hiddenFix = "the server hides refs/queen from fetches (uploadpack.hideRefs or transfer.hideRefs covering " +
	"refs/queen, or a read rule), so no clone can see the others' records: remove refs/queen from those settings " +
	"on the server (git config --unset-all uploadpack.hideRefs in the bare repository), or allow reading refs/queen/"

// Transient reports whether trying again later may succeed (the remote
// was out of reach), as opposed to a remote that refuses the ledger.
func (e *RemoteError) Transient() bool {
	return e.Cause != Refused && e.Cause != Hidden && e.Cause != Blocked && e.Cause != Split && e.Cause != Aliased
}

// IsRemoteError reports whether err is a remote that could not be reached
// or refused the ledger.
func IsRemoteError(err error) bool {
	_, ok := errors.AsType[*RemoteError](err)
	return ok
}

// refusal names why a remote rejected a push of the ledger, in the words
// that say what to change on the server.
func refusal(res transport.PushResult) string {
	switch res.Refusal {
	case transport.HiddenRef:
		return "it hides refs/queen from pushes (receive.hideRefs or transfer.hideRefs on the server)"
	case transport.AccessRule:
		return "an access rule denies it (gitolite)"
	case transport.PreReceiveHook:
		return "its pre-receive hook declined it"
	case transport.UpdateHook:
		return "its update hook declined it"
	}
	return "it rejected it (" + res.Reason + ")"
}

// PushElsewhere says where a configured remote pushes when it is not
// where it fetches from (a remote.NAME.pushurl other than its url, as a
// fork's triangular setup has); "" when it pushes where it fetches, or
// remote is no configured name.
func PushElsewhere(repo *gitrepo.Repo, remote string) (pushURL, fetchURL string) {
	cfg := repo.ReadConfig()
	fetchURL, _ = cfg.Get("remote." + remote + ".url")
	for _, push := range cfg.All("remote." + remote + ".pushurl") {
		if repoOf(push) != repoOf(fetchURL) {
			return redact.Password(push), redact.Password(fetchURL)
		}
	}
	return "", ""
}

// repoOf is the host and path a URL names, whatever its transport and
// user: https://github.com/org/repo.git, ssh://git@github.com/org/repo and
// git@github.com:org/repo all are "github.com/org/repo".
func repoOf(url string) string {
	if m := schemePrefix().FindStringSubmatch(url); m != nil {
		url = url[len(m[0]):]
	} else if host, path, ok := scpLike(url); ok {
		url = host + "/" + path
	}
	if at := strings.LastIndex(url, "@"); at >= 0 && at < strings.IndexByte(url+"/", '/') {
		url = url[at+1:]
	}
	return strings.TrimSuffix(strings.TrimSuffix(url, "/"), ".git")
}
