package ledgersync

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// The pre-push hook judges a push against the reservations the remote
// holds now, not against what this clone last fetched: it fetches the
// remote's ledger first, with sync's own fetch (one git fetch of
// refs/queen/ledger to the tracking ref, bounded, lock races retried),
// and nothing else of a sync: nothing is merged, applied or pushed, and
// the live store is not locked. What the fetch brought counts at once in
// every check through the fetched view (Fetched), which reads the
// tracking refs.

// DefaultPrePushTimeout bounds the pre-push hook's fetch of the ledger
// unless queen.prePushTimeout says otherwise. A fetch that brings nothing
// new is one exchange of refs (milliseconds on a LAN, a few hundred over
// ssh or HTTPS across the Internet, most of it the handshake); a week of a
// busy team's records is kilobytes. 5 s is several times the slow case,
// and short enough that a push to a server that is down (which fails
// anyway) does not wait long: when it runs out, the hook judges on what
// this clone holds and says so. git-lfs's pre-push asks its server about
// locks the same way.
const DefaultPrePushTimeout = 5 * time.Second

// PrePushTimeoutKey is the git configuration key of that bound; "0" or
// "off" turns the hook's fetch off.
const PrePushTimeoutKey = "queen.prePushTimeout"

// ConfiguredPrePushTimeout is queen.prePushTimeout as git configuration
// sets it for repo in any scope (git -c included), or
// DefaultPrePushTimeout: a duration or a number of seconds
// (ParseTimeout), or 0, off, false or no for no fetch at all (then the
// result is zero, and the hook does not fetch).
func ConfiguredPrePushTimeout(repo *gitrepo.Repo) (time.Duration, error) {
	v, ok := repo.ReadConfig().Get(PrePushTimeoutKey)
	if !ok {
		return DefaultPrePushTimeout, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "0s", "off", "false", "no":
		return 0, nil
	}
	d, err := ParseTimeout(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w, or off to judge pushes without fetching (git config %s 5s)", PrePushTimeoutKey, err, PrePushTimeoutKey)
	}
	return d, nil
}

// LedgerFetch is what FetchLedger brought.
type LedgerFetch struct {
	// Remote is the remote as git was given it.
	Remote string `json:"remote"`
	// Tip is the commit of the remote's ledger ("" when it has none).
	Tip string `json:"tip,omitempty"`
}

// FetchLedger brings the ledger of remote (a configured remote's name, or
// the URL git hands a pre-push hook) to its tracking ref, within limit. It
// returns a *RemoteArgError for a remote git-queen does not fetch from
// (see ResolveRemote) and a *RemoteError when the remote could not be
// reached or did not answer in time; a remote without a ledger is no
// error (Tip is empty).
func FetchLedger(s *store.Store, remote string, limit time.Duration) (LedgerFetch, error) {
	out := LedgerFetch{Remote: remote}
	sy, err := New(s, "")
	if err != nil {
		return out, err
	}
	defer sy.Close()
	sy.Timeout = limit
	rm, err := ResolveRemote(s.WS.Repo, remote, sy.gitDir())
	if err != nil {
		return out, err
	}
	out.Remote = rm.Shown()
	tip, err := sy.fetch(rm)
	if err != nil {
		return out, err
	}
	if !tip.IsZero() {
		out.Tip = tip.String()
	}
	return out, nil
}

// ConfiguredRemote is queen.remote, or "" when the store has no remote
// (or is not the live store).
func ConfiguredRemote(s *store.Store) string {
	if !s.WS.Live || s.WS.Repo == nil {
		return ""
	}
	return TeamRemote(s.WS.Repo)
}

// TeamRemote is queen.remote in repo, whatever store a command uses ("" when
// unset): the remote the team pushes its work to and shares its ledger
// through, which a push to another remote need not judge again.
func TeamRemote(repo *gitrepo.Repo) string {
	remote, _ := repo.LocalConfig("queen.remote")
	return strings.TrimSpace(remote)
}

// SharesLedger says whether this clone exchanges its ledger with remote:
// it is queen.remote, or its fetch refspecs bring the ledger, or a ledger
// of it was fetched before. Reading only the repository's own files, it
// costs no process. A remote that does not is one whose failed fetch is
// not worth a word.
func SharesLedger(s *store.Store, remote string) bool {
	repo := s.WS.Repo
	if repo == nil || remote == "" {
		return false
	}
	fetch, _ := repo.LocalConfig("remote." + remote + ".fetch")
	if TeamRemote(repo) == remote || strings.Contains(fetch, ledger.Ref) {
		return true
	}
	tracking, err := ledger.TrackingRefs(repo.CommonDir)
	_, fetched := tracking[ledger.TrackingName(remote)]
	return err == nil && fetched
}
