package app

import (
	"cmp"
	"errors"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
	"github.com/git-queen/git-queen/internal/team/setup"
)

// InitResult is what init did: the changes and the checks after them, and
// with a remote, its first sync.
type InitResult struct {
	Changes []setup.Change
	Checks  []setup.Check
	// Elsewhere names the hooks git runs that git-queen does not write
	// (a hook manager's): everything else was set up, and the caller
	// reports it once the rest is said.
	Elsewhere *setup.ElsewhereError
	// Synced is the first sync with o.Remote; SyncErr why it failed (the
	// setup stands, the sharing does not yet).
	Synced  *ledgersync.Result
	SyncErr error
}

// Init sets the repository around e.Dir up (see setup.Repo.Init) and, with
// a remote, syncs with it once. It refuses a bad droid name, an
// option-shaped remote and a remote the live store cannot be shared
// through before it changes anything. On any other error the result still
// says what was changed before it.
func Init(e *Env, o setup.Options) (*InitResult, error) {
	if o.Droid != "" {
		if err := records.ValidateIdentity(o.Droid); err != nil {
			return nil, err
		}
	}
	if err := gitrepo.RefuseOption("remote", o.Remote); err != nil {
		return nil, &UsageError{Command: "init", Msg: err.Error()}
	}
	r, err := setup.NewRepo(e.Dir)
	if err != nil {
		return nil, err
	}
	if o.Remote != "" {
		if err := r.CheckShareable(o.Remote); err != nil {
			return nil, err
		}
	}
	res := &InitResult{}
	o.GivenDroid, o.GivenBy = e.givenIdentity()
	o.Getenv = e.Getenv
	res.Changes, res.Checks, err = r.Init(o)
	if errors.As(err, &res.Elsewhere) {
		err = nil
	}
	if err != nil {
		return res, err
	}
	if o.Remote != "" {
		res.Synced, res.SyncErr = firstSync(e, o.Remote)
	}
	return res, nil
}

// firstSync brings the remote's records in (and sends this clone's) right
// after init --remote.
func firstSync(e *Env, remote string) (*ledgersync.Result, error) {
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	return e.syncOnce(s, e.Identity(), remote)
}

// DoctorRequest is doctor's: repair what init sets up (Fix), even into a
// global core.hooksPath (Force).
type DoctorRequest struct {
	Fix, Force bool
}

// Doctor checks what git-queen needs of the repository around e.Dir,
// probing the remote within the network timeout, and with r.Fix repairs
// what init sets up.
func Doctor(e *Env, r DoctorRequest) ([]setup.Change, []setup.Check, error) {
	repo, err := setup.NewRepo(e.Dir)
	if err != nil {
		return nil, nil, err
	}
	repo.Now = e.Now
	timeout, err := e.NetworkTimeout()
	if err != nil {
		return nil, nil, err
	}
	o := setup.Options{Force: r.Force, Probe: true, Timeout: timeout, NamedStore: cmp.Or(e.BeadsDir, e.Getenv("BEADS_DIR"))}
	o.GivenDroid, o.GivenBy = e.givenIdentity()
	o.Getenv = e.Getenv
	return repo.Doctor(o, r.Fix)
}
