package commands

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
	"github.com/git-queen/git-queen/internal/team/precommit"
)

// prePushOptions are what git hands the pre-push hook: the remote's name
// (its URL is not needed; the refs come on stdin).
type prePushOptions struct {
	Env    *Env
	G      globals
	Remote string
}

// ledgerFetch is how the hook's fetch of the remote's ledger went, for
// --json and for the line that says the push was judged without it.
type ledgerFetch struct {
	Remote string `json:"remote"`
	// Fetched is true when the remote answered; Tip is its ledger then
	// ("" when it has none).
	Fetched bool   `json:"fetched"`
	Tip     string `json:"tip,omitempty"`
	// Skipped says why no fetch was tried (queen.prePushTimeout off, a
	// store that is not the live one, a remote git-queen does not fetch).
	Skipped string `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
	// note is the one line for stderr when the push was judged without
	// the remote's ledger and this clone shares its ledger there.
	note string
}

func runPrePush(o prePushOptions) error {
	o.Env = o.Env.guardEnv()
	env, g := o.Env, o.G
	res, fetched, err := prePushCheck(env, g, o.Remote)
	if err != nil {
		return &errCheckFailed{err: err, push: true}
	}
	if fetched != nil && fetched.note != "" {
		fmt.Fprintln(env.Stderr, fetched.note)
	}
	if g.JSON {
		if err := printJSON(env.Stdout, map[string]any{"refused": len(res.Refusals) > 0, "result": res, "ledger": fetched}); err != nil {
			return err
		}
	} else if len(res.Refusals) > 0 {
		printPushRefusal(env.Stderr, res)
	}
	if len(res.Refusals) > 0 {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

// prePushCheck judges the push; the fetch of the remote's ledger runs
// inside the check, once it knows the push carries commits, while git
// lists the paths they change. fetched is nil when no fetch was due.
func prePushCheck(env *Env, g globals, remote string) (*precommit.PushResult, *ledgerFetch, error) {
	repo, err := gitrepo.Discover(env.Dir)
	if err != nil {
		return nil, nil, err
	}
	updates, remote, err := prePushUpdates(env, repo, remote) // git's stdin, or the pre-commit framework's refs
	if err != nil {
		return nil, nil, err
	}
	s, err := env.session(g).OpenStore()
	if err != nil {
		return nil, nil, err
	}
	remote = cmp.Or(remote, "origin")
	var fetched *ledgerFetch
	hub := cmp.Or(ledgersync.ConfiguredRemote(s), "origin") // where the team's work is pushed, judged
	in := precommit.PushInput{Repo: repo, Store: s, Remote: remote, Hub: hub, Updates: updates,
		Identity: func() string { return env.identity(g) },
		Refresh:  func() { fetched = fetchForPush(s, remote) }}
	res, err := precommit.CheckPush(in)
	return res, fetched, err
}

// fetchForPush fetches the ledger of the remote being pushed to, so that
// its reservations count as the remote holds them now. A push to a remote
// this clone shares no ledger with (a fork, a mirror) is judged on the
// team's reservations: the ledger of queen.remote is fetched instead.
func fetchForPush(s *store.Store, remote string) *ledgerFetch {
	if hub := ledgersync.ConfiguredRemote(s); hub != "" && !ledgersync.SharesLedger(s, remote) {
		remote = hub
	}
	out := &ledgerFetch{Remote: remote}
	if !s.WS.Live || s.WS.Repo == nil {
		out.Skipped = "the store is a plain directory (--beads-dir or BEADS_DIR), which has no ledger"
		return out
	}
	limit, err := ledgersync.ConfiguredPrePushTimeout(s.WS.Repo)
	if err != nil {
		out.Error = err.Error()
		out.note = fmt.Sprintf("git-queen: pre-push: did not fetch %s's ledger: %v; judged on the reservations this clone has", anonymized(remote), err)
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
			out.note = fmt.Sprintf("git-queen: pre-push: could not fetch %s's ledger (%s); judged on the reservations this clone has "+
				"(git queen sync fetches them; %s sets how long to wait)", anonymized(remote), fetchFailure(err), ledgersync.PrePushTimeoutKey)
		}
	default:
		out.Remote, out.Fetched, out.Tip = f.Remote, true, f.Tip
	}
	return out
}

// fetchFailure is what went wrong with a fetch, in a few words.
func fetchFailure(err error) string {
	var re *ledgersync.RemoteError
	if errors.As(err, &re) {
		return re.Msg
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

func printPushRefusal(w io.Writer, res *precommit.PushResult) {
	fmt.Fprintf(w, "git-queen: push refused: %d change(s) to paths other droids reserved exclusively:\n", len(res.Refusals))
	var names []string
	rest := "take the change out of the commits you push, or push anyway with git push --no-verify"
	for _, r := range res.Refusals {
		h := r.Reservation
		names = append(names, h.Droid)
		changes := "changes"
		if r.Dropped && !strings.HasPrefix(rest, "keep") {
			rest = "keep the commits the remote has in what you push (git rebase onto them, then push without --force), " + rest
		}
		if r.Dropped {
			changes = "is taken off the remote by this push, which undoes its change to"
		}
		fmt.Fprintf(w, "  commit %s %q %s %s: reserved exclusively by %s (pattern %s%s, expires %s)\n",
			r.Commit[:min(12, len(r.Commit))], r.Subject, changes, shownPath(r.Path), h.Droid, h.Pattern, forIssue(h.IssueID), records.Relative(res.Now, h.Expiry()))
	}
	printWaysOut(w, names, rest, res.Me)
}

// printWaysOut ends a refused commit, merge or push: whom to ask (the
// holders), what else to do (rest), and, for a droid without an identity
// (me), why every reservation applied.
func printWaysOut(w io.Writer, holders []string, rest, me string) {
	fmt.Fprintf(w, "ways out: ask the holder (git queen msg send --to %s --subject ...), wait for the reservation to end, %s\n",
		strings.Join(firstSeen(holders), ","), rest)
	if me == "" {
		fmt.Fprintln(w, "you have no droid identity, so every droid's exclusive reservations apply to you; "+app.ErrNoIdentity.Text().In(commandLine))
	}
}

// firstSeen is list without its repeats, each where it first stood.
func firstSeen(list []string) []string {
	seen := map[string]bool{}
	return slices.DeleteFunc(list, func(s string) bool {
		was := seen[s]
		seen[s] = true
		return was
	})
}

// shownPath is a path as a message shows it: as it is, unless it holds a
// control character (a tab, a newline), which would break the message's
// lines; then quoted, as Go quotes strings.
func shownPath(p string) string {
	if strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	return p
}

// anonymized is a remote as a message shows it: a URL without the user
// and password it may carry (as git prints URLs).
func anonymized(remote string) string {
	scheme, rest, ok := strings.Cut(remote, "://")
	if !ok {
		return remote
	}
	authority, path, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	if path != "" || strings.Contains(rest, "/") {
		return scheme + "://" + authority + "/" + path
	}
	return scheme + "://" + authority
}
