package app

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/redact"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/gitrepo/transport"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
	"github.com/git-queen/git-queen/internal/team/precommit"
)

// PreCommitRequest is what the pre-commit and pre-merge-commit hooks
// judge: what is staged in the repository around Env.Dir.
type PreCommitRequest struct {
	// Environ is the hook's environment as git set it (GIT_INDEX_FILE
	// names the index a `git commit PATH` stages into); nil for this
	// process's.
	Environ []string
	// ReportIdentity puts the identity the check used in the result.
	ReportIdentity bool
}

// PreCommit judges a commit or a merge commit: the staged paths against
// other droids' exclusive reservations, and the staged logs against their
// formats and the lines committed before.
func PreCommit(e *Env, r PreCommitRequest) (*precommit.Result, error) {
	repo, err := gitrepo.Discover(e.Dir)
	if err != nil {
		return nil, err
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	in := precommit.Input{Repo: repo, Store: s, Identity: e.Identity, ReportIdentity: r.ReportIdentity, Environ: r.Environ}
	if in.Registry, in.Limit, err = e.LoadValidateConfig(repo.TopLevel); err != nil {
		return nil, err
	}
	return precommit.Run(in)
}

// PrePushRequest is what git hands the pre-push hook: the remote's name
// (its argument) and the lines naming the refs pushed (its stdin).
type PrePushRequest struct {
	Remote string
	Refs   []byte
}

// PrePushResult is the pre-push check's verdict, with how the fetch of the
// remote's ledger went (nil when the push carried no commits to judge).
type PrePushResult struct {
	Push   *precommit.PushResult
	Ledger *LedgerFetch
}

// KeepsLFSObjects says whether the repository at dir keeps Git LFS objects
// (false where there is none): a push past the pre-push check with
// --no-verify skips LFS's upload too, whether the check refused the push
// or could not run.
func KeepsLFSObjects(dir string) bool {
	repo, err := gitrepo.Discover(dir)
	return err == nil && repo.KeepsLFSObjects()
}

// LedgerFetch is how the pre-push check's fetch of the remote's ledger
// went, for --json and for the line that says the push was judged without
// it.
type LedgerFetch struct {
	Remote string `json:"remote"`
	// Fetched is true when the remote answered; Tip is its ledger then
	// ("" when it has none).
	Fetched bool   `json:"fetched"`
	Tip     string `json:"tip,omitempty"`
	// Skipped says why no fetch was tried (queen.prePushTimeout off, a
	// store that is not the live one, a remote git-queen does not fetch).
	Skipped string `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
	// Missed, when the push was judged without the remote's ledger and
	// this clone shares its ledger there, says so for the person pushing.
	Missed string `json:"-"`
}

// PrePush judges a push: every commit it gives the remote that the remote
// lacks, against the exclusive reservations as the remote holds them now
// (its ledger is fetched first, within queen.prePushTimeout, once the push
// is known to carry commits).
func PrePush(e *Env, r PrePushRequest) (*PrePushResult, error) {
	repo, err := gitrepo.Discover(e.Dir)
	if err != nil {
		return nil, err
	}
	updates, remote, err := pushUpdates(e.Getenv, repo, r.Remote, r.Refs)
	if err != nil {
		return nil, err
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	remote = cmp.Or(remote, "origin")
	out := &PrePushResult{}
	team := ledgersync.ConfiguredRemote(s)               // whose ledger is fetched: none for a plain store
	hub := cmp.Or(ledgersync.TeamRemote(repo), "origin") // where the team's work is pushed, judged, whatever the store
	in := precommit.PushInput{Repo: repo, Store: s, Remote: remote, Hub: hub, Updates: updates, Identity: e.Identity,
		Refresh: func() { out.Ledger = fetchForPush(s, remote, team) }}
	tracks := func(spec string) bool { return strings.Contains(spec, ":refs/remotes/"+remote+"/") }
	if len(updates) > 0 && !slices.ContainsFunc(repo.ReadConfig().All("remote."+remote+".fetch"), tracks) {
		in.Known = remoteTips(repo, remote) // git clone --bare fetches into no remote-tracking refs
	}
	if out.Push, err = precommit.CheckPush(in); err != nil {
		return nil, err
	}
	return out, nil
}

// remoteTips asks remote for the commits its branches and tags show,
// within queen.prePushTimeout (none when it is off or the remote does not
// answer): a clone that keeps no remote-tracking refs of it knows no other
// way what the remote already has.
func remoteTips(repo *gitrepo.Repo, remote string) []string {
	limit, err := ledgersync.ConfiguredPrePushTimeout(repo)
	if err != nil || limit == 0 {
		return nil
	}
	ids, _ := transport.Tips(repo.TopLevel, remote, limit)
	return ids
}

// fetchForPush fetches the ledger of the remote being pushed to, so that
// its reservations count as the remote holds them now. A push to a remote
// this clone shares no ledger with (a fork, a mirror) is judged on the
// team's reservations: the ledger of team (queen.remote; "" for none) is
// fetched instead.
func fetchForPush(s *store.Store, remote, team string) *LedgerFetch {
	if team != "" && !ledgersync.SharesLedger(s, remote) {
		remote = team
	}
	out := &LedgerFetch{Remote: remote}
	if !s.WS.Live || s.WS.Repo == nil {
		out.Skipped = "the store is a plain directory (--beads-dir or BEADS_DIR), which has no ledger"
		return out
	}
	limit, err := ledgersync.ConfiguredPrePushTimeout(s.WS.Repo)
	if err != nil {
		out.Error = err.Error()
		out.Missed = "did not fetch " + redact.Userinfo(remote) + "'s ledger: " + err.Error() + "; judged on the reservations this clone has"
		return out
	}
	if limit == 0 {
		out.Skipped = ledgersync.PrePushTimeoutKey + " is off"
		return out
	}
	f, err := ledgersync.FetchLedger(s, remote, limit)
	var argErr *ledgersync.RemoteArgError
	switch {
	case errors.As(err, &argErr):
		out.Skipped = argErr.Error()
	case err != nil:
		out.Error = err.Error()
		if ledgersync.SharesLedger(s, remote) {
			out.Missed = "could not fetch " + redact.Userinfo(remote) + "'s ledger (" + fetchFailure(err) + "); judged on the reservations this clone has " +
				"(git queen sync fetches them; " + ledgersync.PrePushTimeoutKey + " sets how long to wait)"
		}
	default:
		out.Remote, out.Fetched, out.Tip = f.Remote, true, f.Tip
	}
	return out
}

// fetchFailure is what went wrong with a fetch, in a few words.
func fetchFailure(err error) string {
	if re, ok := errors.AsType[*ledgersync.RemoteError](err); ok {
		return re.Msg
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
