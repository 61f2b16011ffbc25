package commands

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/ledgersync"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/store"
)

func syncCommand(env *Env) *cli.Command { return newSyncCmd(env, runSync) }

// newSyncCmd builds `sync`; like newReserveCmd, it hands runF the options its
// argv gives.
func newSyncCmd(env *Env, runF func(syncOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "exchange the coordination records with a remote (fetch, union, compare-and-swap push)",
		ArgsUsage: "[REMOTE]",
		Description: `Every clone keeps its records in the repository's live store and their
history on the ref refs/queen/ledger. sync fetches the remote's ledger,
merges it with this clone's (a union of record versions: no conflicts),
brings the other clones' records into the live store, and pushes the result
with a compare-and-swap; when another clone pushed first, it fetches and
merges again. After a round of syncs every clone holds the same records.

REMOTE defaults to queen.remote (git queen init --remote NAME sets it). It is
the name of one of the repository's remotes, or a URL: a path (relative to
the current directory), file://, http(s)://, ssh://, git:// or host:path. A
remote helper URL (ext::, fd::, ...) runs a program, so it is accepted only
as a configured remote. The transfer is git's own fetch and push, so the
remote's URL, credentials and protocol work as they do for your branches;
pre-push hooks are not run for the ledger.

Each fetch and push is stopped, with every process it started, after ` + ledgersync.DefaultTimeout.String() + `
without finishing: git config queen.timeout 2m (or QUEEN_TIMEOUT=2m for one
command) allows longer.

An exclusive reservation granted with --offline that overlaps a reservation
another clone published first is withdrawn here, named, and sync exits 5;
so is an assignment made with --offline of an issue that another clone's
assignment, published first, holds.`,
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 1 {
				return &UsageError{Command: "sync", Msg: "name at most one REMOTE"}
			}
			return runF(syncOptions{Env: env, G: readGlobals(c), Remote: c.Args().First()})
		},
	}
}

type syncOptions struct {
	Env    *Env
	G      globals
	Remote string
}

func runSync(o syncOptions) error {
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	sy, err := o.Env.openSyncer(s, o.Env.identity(o.G))
	if err != nil {
		return err
	}
	defer sy.Close()
	remote, err := o.Env.syncRemote(s, o.Remote)
	if err != nil {
		return err
	}
	res, err := sy.Sync(remote)
	if err != nil {
		return err
	}
	if o.G.JSON {
		if err := printJSON(o.Env.Stdout, res); err != nil {
			return err
		}
	} else {
		printSync(o.Env, res)
	}
	if lostAny(res) {
		return &SilentError{Code: ExitConflict}
	}
	return nil
}

// syncRemote is the remote a sync exchanges with: the one named, else
// queen.remote.
func (e *Env) syncRemote(s *store.Store, named string) (string, error) {
	if named != "" && s.WS.Live && s.WS.Repo != nil {
		rm, err := ledgersync.ResolveRemote(s.WS.Repo, named, e.Dir)
		if err != nil {
			return "", &UsageError{Command: "sync", Msg: err.Error()}
		}
		return rm.Arg, nil
	}
	if named != "" {
		return named, nil // not the live store: the syncer says so
	}
	if remote := configuredRemote(s); remote != "" {
		return remote, nil
	}
	return "", &UsageError{Command: "sync", Msg: "no remote to sync with: name one (git queen sync origin), " +
		"or set it once with git queen init --remote origin"}
}

// configuredRemote is queen.remote, or "" when the store has no remote
// (or is not the live store).
func configuredRemote(s *store.Store) string {
	if !s.WS.Live || s.WS.Repo == nil {
		return ""
	}
	remote, _ := s.WS.Repo.LocalConfig("queen.remote")
	return strings.TrimSpace(remote)
}

func printSync(e *Env, res *ledgersync.Result) {
	w := e.Stdout
	switch {
	case len(res.Sent) == 0 && len(res.Received) == 0 && res.Pushed && len(res.SetAside) > 0:
		fmt.Fprintf(w, "synced with %s: nothing new either way; pushed this clone's ledger in place of the one set aside (ledger %s)\n",
			res.Remote, shortID(res.Ledger))
	case len(res.Sent) == 0 && len(res.Received) == 0:
		fmt.Fprintf(w, "synced with %s: nothing new either way (ledger %s)\n", res.Remote, shortID(res.Ledger))
	default:
		fmt.Fprintf(w, "synced with %s: sent %s; received %s (ledger %s)\n", res.Remote,
			res.Sent, res.Received, shortID(res.Ledger))
	}
	printSyncNotes(e, res)
	now := e.Now()
	for _, wd := range res.Withdrawn {
		fmt.Fprintf(e.Stderr, "git-queen: withdrew %s's reservation %s (%s): %s's %s%s, published on %s first, overlaps it (expires %s; e.g. %s)\n",
			wd.Lost.Droid, wd.Lost.Pattern, wd.Lost.ID, wd.Winner.Droid, wd.Winner.Pattern, forIssue(wd.Winner.IssueID),
			res.Remote, relTime(now, wd.Winner.Expiry()), witnessOr(wd.Witness))
	}
	printAssignmentWithdrawals(e, res, "")
}

func witnessOr(w string) string {
	if w == "" {
		return "the patterns were too complex to compare"
	}
	return w + " matches both"
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	if id == "" {
		return "empty"
	}
	return id
}

// openSyncer opens the ledger of the live store s for droid. With
// QUEEN_TRACE set, each step of a sync is timed on stderr.
func (e *Env) openSyncer(s *store.Store, droid string) (*ledgersync.Syncer, error) {
	timeout, err := e.networkTimeout()
	if err != nil {
		return nil, err
	}
	sy, err := ledgersync.New(s, droid)
	if err != nil {
		return sy, err
	}
	sy.Timeout = timeout
	if e.Getenv("QUEEN_TRACE") == "" {
		return sy, nil
	}
	start, last := time.Now(), time.Now()
	sy.Trace = func(step string) {
		now := time.Now()
		fmt.Fprintf(e.Stderr, "git-queen: trace: %8.2f ms %8.2f ms  %s\n",
			float64(now.Sub(start).Microseconds())/1000, float64(now.Sub(last).Microseconds())/1000, step)
		last = now
	}
	return sy, nil
}

// networkTimeout is QUEEN_TIMEOUT, which bounds each fetch, push and
// ls-remote of this command (zero when unset: queen.timeout, else the
// default, apply).
func (e *Env) networkTimeout() (time.Duration, error) {
	v := strings.TrimSpace(e.Getenv("QUEEN_TIMEOUT"))
	if v == "" {
		return 0, nil
	}
	d, err := ledgersync.ParseTimeout(v)
	if err != nil {
		return 0, fmt.Errorf("QUEEN_TIMEOUT: %w", err)
	}
	return d, nil
}

// autosync publishes after a write when queen.autosync is true and a
// remote is configured. The write itself already succeeded, so a sync that
// fails only warns, and says how to publish later.
func (e *Env) autosync(g globals) {
	s, err := e.openStore(g)
	if err != nil || !s.WS.Live || s.WS.Repo == nil || !s.WS.Repo.LocalBool("queen.autosync") {
		return
	}
	remote := configuredRemote(s)
	if remote == "" {
		return
	}
	sy, err := e.openSyncer(s, e.identity(g))
	if err == nil {
		defer sy.Close()
		var res *ledgersync.Result
		if res, err = sy.Sync(remote); err == nil && lostAny(res) {
			printSync(&Env{Stdout: e.Stderr, Stderr: e.Stderr, Now: e.Now}, res)
		}
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "git-queen: warning: done here, but not published to %s (queen.autosync): %v; run git queen sync\n", remote, err)
	}
}

// withAutosync wraps a write command so that it publishes afterwards.
func withAutosync(env *Env, cmd *cli.Command) *cli.Command {
	action := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if err := action(c); err != nil {
			return err
		}
		env.autosync(readGlobals(c))
		return nil
	}
	return cmd
}

// printSyncNotes says on stderr what a sync (or a reserve that synced) set
// aside, rebuilt, and read of the clocks: once per round, not per record.
func printSyncNotes(e *Env, res *ledgersync.Result) {
	if res.Rebuilt != "" {
		fmt.Fprintf(e.Stderr, "git-queen: this clone's ledger was damaged (%s); it was rebuilt from the live store, and nothing was lost\n", res.Rebuilt)
	}
	for _, a := range res.SetAside {
		fmt.Fprintf(e.Stderr, "git-queen: set aside %s; %s\n", a, a.Fix())
	}
	if res.Future > 0 {
		fmt.Fprintf(e.Stderr, "git-queen: warning: %d reservation version(s) from other clones claim times up to %s ahead of this machine's clock; "+
			"each ends here at most its time-to-live after it arrived\n", res.Future, records.ShortDuration(res.FutureBy))
	}
	for _, c := range res.Clocks {
		fmt.Fprintf(e.Stderr, "git-queen: warning: %s\n", c)
	}
	if res.ClockOff != nil {
		fmt.Fprintf(e.Stderr, "git-queen: warning: most clones' commits show this machine's clock off: exclusive reservations are refused here until it is right (%v)\n", res.ClockOff)
	}
}
