package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// Workspace finds the store directory.
func (e *Env) Workspace() (*workspace.Workspace, error) {
	o := workspace.Options{Flag: e.BeadsDir, Env: e.Getenv("BEADS_DIR"), Dir: e.Dir}
	if ws, ok := e.found[o]; ok {
		return ws, nil
	}
	ws, err := workspace.Find(o)
	if err != nil {
		return nil, err
	}
	if e.found == nil {
		e.found = map[workspace.Options]*workspace.Workspace{}
	}
	e.found[o] = ws
	return ws, nil
}

// Identity is the droid a use case acts as: --droid, else QUEEN_DROID,
// else `git config queen.droid` (which `git config --worktree` can set per
// worktree). It returns "" when none is set. The repository's own config
// files are read directly (where init puts the identity); git is asked
// only when they do not set it (a global setting, an include). The name
// is in Unicode NFC (records.CanonicalDroid), whichever form it was given
// in.
func (e *Env) Identity() string {
	if !e.identityDone {
		e.identity, e.identityDone = records.CanonicalDroid(e.findIdentity()), true
	}
	return e.identity
}

// givenIdentity is the droid --droid, QUEEN_DROID or QUEEN_AGENT names,
// and which of them names it: a use case acts as it whatever the git
// config says. Both are "" when none does.
func (e *Env) givenIdentity() (droid, from string) {
	if e.Droid != "" {
		return e.Droid, "--droid"
	}
	for _, name := range []string{"QUEEN_DROID", "QUEEN_AGENT"} { // QUEEN_AGENT: QueenBee's name
		if d := strings.TrimSpace(e.Getenv(name)); d != "" {
			return d, name
		}
	}
	return "", ""
}

// findIdentity is Identity, looked up.
func (e *Env) findIdentity() string {
	if d, from := e.givenIdentity(); d != "" {
		e.identityFrom = from
		return e.usableIdentity(d)
	}
	e.identityFrom = "git config queen.droid"
	repo, err := gitrepo.Discover(e.Dir)
	if err != nil {
		repo = &gitrepo.Repo{TopLevel: e.Dir} // outside a repository: the system and global scopes
	}
	cfg := repo.ReadConfig()
	d, _ := cfg.Get("queen.droid")
	d = strings.TrimSpace(d)
	if scope := cfg.Scope("queen.droid"); d != "" && err == nil && (scope == gitrepo.ScopeLocal || scope == gitrepo.ScopeWorktree) {
		if other := copiedIdentity(repo); other != "" {
			e.identityNote = wording.Textf("this worktree's queen.droid (%s) was set for the worktree whose git directory is %s "+
				"and copied here by git worktree add; give this worktree its own: git queen init --droid NAME", d, other)
			return ""
		}
	}
	return e.usableIdentity(d)
}

// usableIdentity is name, found in e.identityFrom, or "" when
// records.ValidateIdentity refuses it (a space, a leading @ or -, a
// comma: what init --droid refuses): identityNote then says why, naming
// where the name came from, and a use case that needs an identity refuses
// with it. --droid is refused before a use case runs (the command line's
// flag check, the MCP server's checkDroid).
func (e *Env) usableIdentity(name string) string {
	err := records.ValidateIdentity(name)
	if e.identityFrom == "--droid" || name == "" || err == nil {
		return name
	}
	restart := wording.ToolsOnly{} // git config is read at every call
	if e.identityFrom != "git config queen.droid" {
		restart = wording.ToolsOnly(wording.Textf("; the server read it when it started: set a valid name there and start the server again"))
	}
	e.identityNote = wording.Textf("%s is %q: %v%v", e.identityFrom, name, worded(err), restart)
	return ""
}

// CheckDroidFlag refuses a --droid name records.ValidateIdentity refuses,
// before a use case runs: the command line's flag check and the MCP
// server's, each for every call.
func CheckDroidFlag(name string) error {
	if err := records.ValidateIdentity(name); err != nil {
		return usagef("", "--droid: %v", worded(err))
	}
	return nil
}

// worded is the wording.Error err carries, for a message that quotes it
// to be said in each front end's words, else err.
func worded(err error) any {
	if w, ok := errors.AsType[wording.Error](err); ok {
		return w
	}
	return err
}

// RequireIdentity is Identity for use cases that cannot act as nobody.
func (e *Env) RequireIdentity() (string, error) {
	if d := e.Identity(); d != "" {
		return d, nil
	}
	if !e.identityNote.IsZero() {
		return "", usagef("", "no droid identity: %v", e.identityNote)
	}
	return "", ErrNoIdentity
}

// copiedIdentity is the git directory of the worktree the configured
// identity was set for, when that is not this worktree's (git worktree add
// copies config.worktree, and with it the creator's identity); "" when
// the identity is this worktree's own, or says nothing of where it was set.
func copiedIdentity(repo *gitrepo.Repo) string {
	setFor, _ := repo.LocalConfig("queen.droidfor") // "" when unset
	setFor = strings.TrimSpace(setFor)
	if setFor == "" || filepath.Clean(setFor) == filepath.Clean(repo.GitDir) {
		return ""
	}
	return setFor
}

// OpenStore finds the store directory and opens it with this Env's clock,
// reporting torn-tail repairs on Warn as they happen. A store two of whose
// logs are one file is refused (store.CheckOneFile).
func (e *Env) OpenStore() (*store.Store, error) {
	ws, err := e.Workspace()
	if err == nil {
		err = store.CheckOneFile(ws.Dir)
	}
	if err != nil {
		return nil, err
	}
	s := &store.Store{
		WS:    ws,
		Clock: e.Now,
		OnRepair: func(r jsonl.Repair) {
			fmt.Fprintf(e.Warn, "git-queen: warning: %s\n", r)
		},
	}
	if ws.Live {
		s.Fetched = ledgersync.Fetched(ws, s.Now)
	}
	if ws.Repo != nil {
		// A case-insensitive file system: SRC/a.go is src/a.go.
		reservations.IgnoreCase(ws.Repo.LocalBool("core.ignorecase"))
	}
	return s, nil
}

// OpenAs is what a use case that writes as a droid starts with: the
// droid's identity (an error without one) and the store.
func (e *Env) OpenAs() (string, *store.Store, error) {
	me, err := e.RequireIdentity()
	if err != nil {
		return "", nil, err
	}
	s, err := e.OpenStore()
	return me, s, err
}

// OpenSyncer opens the ledger of the live store s for droid. With
// QUEEN_TRACE set, each step of a sync is timed on Warn.
func (e *Env) OpenSyncer(s *store.Store, droid string) (*ledgersync.Syncer, error) {
	timeout, err := e.NetworkTimeout()
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
		fmt.Fprintf(e.Warn, "git-queen: trace: %8.2f ms %8.2f ms  %s\n",
			float64(now.Sub(start).Microseconds())/1000, float64(now.Sub(last).Microseconds())/1000, step)
		last = now
	}
	return sy, nil
}

// NetworkTimeout is QUEEN_TIMEOUT, which bounds each fetch, push and
// ls-remote of this use case (zero when unset: queen.timeout, else the
// default, apply).
func (e *Env) NetworkTimeout() (time.Duration, error) {
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

// Autosync publishes after a write when queen.autosync is true and a
// remote is configured. The write itself already succeeded, so a sync that
// fails only warns, and says how to publish later.
func (e *Env) Autosync() {
	ws, err := e.Workspace()
	if err != nil || !ws.Live || ws.Repo == nil || !ws.Repo.LocalBool("queen.autosync") {
		return
	}
	s, err := e.OpenStore() // only now: most clones never autosync
	if err != nil {
		return
	}
	remote := ledgersync.ConfiguredRemote(s)
	if remote == "" {
		return
	}
	if err := e.syncWith(s, e.Identity(), remote); err != nil {
		fmt.Fprintf(e.Warn, "git-queen: warning: done here, but not published to %s (queen.autosync): %v; run git queen sync\n", remote, err)
	}
}

// syncWith syncs the store s with remote as droid (autosync, a waiter's
// rounds), and tells Withdrawn of any grant of this clone it withdrew.
func (e *Env) syncWith(s *store.Store, droid, remote string) error {
	res, err := e.syncOnce(s, droid, remote)
	if err == nil && LostAny(res) && e.Withdrawn != nil {
		e.Withdrawn(res)
	}
	return err
}

// syncOnce opens the syncer of the store s for droid, syncs with remote
// once and closes it.
func (e *Env) syncOnce(s *store.Store, droid, remote string) (*ledgersync.Result, error) {
	sy, err := e.OpenSyncer(s, droid)
	if err != nil {
		return nil, err
	}
	defer sy.Close()
	return sy.Sync(remote)
}

// LostAny says whether a sync withdrew any of this clone's grants.
func LostAny(res *ledgersync.Result) bool {
	return len(res.Withdrawn) > 0 || len(res.WithdrawnAssignments) > 0
}
