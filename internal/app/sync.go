package app

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// SyncRequest names the remote to sync with.
type SyncRequest struct {
	Remote string `json:"remote,omitempty" jsonschema:"the remote to sync with: a remote's name or a URL (default: the one git queen init --remote configured)"`
}

// Sync exchanges the records with a remote. A sync that withdrew this
// clone's grants (an --offline reservation or assignment another clone
// published first) is a ConflictError whose result names them.
var Sync = UseCase[SyncRequest, *ledgersync.Result]{Name: "sync", run: func(e *Env, r SyncRequest) (*ledgersync.Result, error) {
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	if me := e.Identity(); me != "" && s.WS.Live && s.WS.Repo != nil {
		// Before the sync, so that it publishes a sighting that moved.
		e.noteStamped(s.WS, me, e.Now(), func() *store.Store { return s })
	}
	sy, err := e.OpenSyncer(s, e.Identity())
	if err != nil {
		return nil, err
	}
	defer sy.Close()
	remote, err := e.syncRemote(s, r.Remote)
	if err != nil {
		return nil, err
	}
	res, err := sy.Sync(remote)
	if err != nil {
		return nil, err
	}
	if LostAny(res) {
		return res, conflict(fmt.Errorf("sync withdrew %d reservation(s) and %d assignment(s) of this clone that another clone published first (see the result's withdrawn)",
			len(res.Withdrawn), len(res.WithdrawnAssignments)))
	}
	return res, nil
}}

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
	if remote := ledgersync.ConfiguredRemote(s); remote != "" {
		return remote, nil
	}
	return "", usagef("sync", "no remote to sync with: name one (%v%v), or set it once with git queen init --remote origin",
		wording.CommandLineOnly(wording.Textf("git queen sync origin")), wording.ToolsOnly(wording.Textf("%v=%q", wording.Param("remote"), "origin")))
}
