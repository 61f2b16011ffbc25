package setup

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// remoteName is the remote a check looks at: the one init was asked for,
// else queen.remote ("" for none).
func (r *Repo) remoteName(remote string) (name, configured string) {
	configured = r.setting("queen.remote")
	if remote != "" {
		return remote, configured
	}
	return configured, configured
}

// CheckShareable refuses, before init changes anything, to share the live
// store through remote in a repository whose objects the ledger cannot
// write (SHA-256).
func (r *Repo) CheckShareable(remote string) error {
	if err := gitrepo.CheckObjectFormat(r.CommonDir); err != nil {
		return fmt.Errorf("nothing was set up: the live store cannot be shared through %s: %w\n"+
			"git queen init without --remote sets up the rest, and the store stays on this machine", remote, err)
	}
	return nil
}

// checkRemote checks the remote the live store is shared through: the
// queen.remote setting and the refspec that fetches its ledger (replacing
// the refspec of earlier versions, which fetched everything under
// refs/queen/). remote is the one init was asked for ("" to check what is
// configured).
func (r *Repo) checkRemote(remote string) Check {
	name, configured := r.remoteName(remote)
	noLedger := gitrepo.CheckObjectFormat(r.CommonDir)
	switch {
	case name == "" && noLedger != nil:
		return ok("remote", "no remote: a SHA-256 repository keeps the live store on this machine")
	case name == "":
		return ok("remote", "no remote: the live store stays on this machine (git queen init --remote NAME shares it through a git remote)")
	case strings.HasPrefix(name, "-") || !r.HasRemote(name):
		c := Check{Name: "remote", Status: Fail, Message: fmt.Sprintf("there is no remote named %q (git remote add NAME URL; git remote -v lists them)", name)}
		if remote != "" { // init --remote: it fails, rather than set up and then fail to sync
			c.forInit, c.fix = true, func() error {
				return fmt.Errorf("there is no remote named %q, so the live store is not shared: add it (git remote add %s URL; git remote -v lists them), "+
					"then git queen init --remote %s", name, name, name)
			}
		}
		return c
	case noLedger != nil:
		return Check{Name: "remote", Status: Fail, Message: fmt.Sprintf("%s cannot carry the live store: %v; %s", name, noLedger, ledgersync.NoLedgerHere)}
	}
	refspec := ledger.FetchRefspec(name)
	var stale []string
	has := false
	for _, f := range r.ReadConfig().All("remote." + name + ".fetch") {
		switch {
		case f == refspec:
			has = true
		case staleRefspec(f):
			stale = append(stale, f)
		}
	}
	if configured == name && has && len(stale) == 0 {
		synced, pending := ledgersync.Status(r.liveStore().WS, ledger.TrackingName(name))
		when := "never synced yet (git queen sync)"
		if !synced.IsZero() {
			when = "last synced " + records.Relative(time.Now(), synced)
		}
		return ok("remote", "the live store is shared through %s (its ledger is fetched to %s); %s; %d record versions not published yet",
			name, ledger.TrackingRef(name), when, pending)
	}
	c := Check{Name: "remote", Status: Fail, Fixable: true, forInit: remote != "" || name == configured,
		fix: func() error {
			if err := r.SetConfig(gitrepo.ScopeLocal, "queen.remote", name); err != nil {
				return err
			}
			for _, f := range stale {
				if err := r.UnsetConfigMatching("remote."+name+".fetch", "^"+regexp.QuoteMeta(f)+"$"); err != nil {
					return err
				}
			}
			if has {
				return nil
			}
			return r.AddConfig("remote."+name+".fetch", refspec)
		}}
	switch {
	case configured != name:
		c.Message = fmt.Sprintf("queen.remote should be %s but is %q", name, configured)
	case len(stale) > 0:
		c.Message = fmt.Sprintf("remote.%s.fetch should be %s but is %s (which also fetches refs other clones push under refs/queen/)",
			name, refspec, strings.Join(stale, " and "))
	default:
		c.Message = fmt.Sprintf("remote.%s.fetch should include %s, so that git fetch brings the ledger", name, refspec)
	}
	return c
}

// staleRefspec says whether a fetch refspec is one an earlier git-queen
// set up, or one for the ledger that differs from today's: its source is
// refs/queen/* or refs/queen/ledger*.
func staleRefspec(spec string) bool {
	src, _, ok := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
	return ok && (src == "refs/queen/*" || src == ledger.Ref+"*")
}

// checkRemoteLedger asks the remote (doctor only, bounded by the network
// timeout) whether it serves the ledger, and reads how the last push and
// fetch of it went: whether it accepts the ledger shows only when a push
// reaches its hooks and rules, which doctor does not do itself (a probe
// push would run the server's hooks and leave a ref behind).
func (r *Repo) checkRemoteLedger(o Options) Check {
	name, _ := r.remoteName(o.Remote)
	const check = "remote-ledger"
	if r.probe == nil {
		p := &probed{limit: o.Timeout}
		if p.limit <= 0 {
			p.limit, p.err = ledgersync.ConfiguredTimeout(r.Repo)
		}
		if p.err == nil {
			p.tip, p.found, p.err = ledgersync.ProbeRef(r.Repo, name, ledger.Ref, p.limit)
		}
		r.probe = p
	}
	p := r.probe
	last := ledgersync.LastOutcomes(r.liveStore().WS, name)
	now := time.Now()
	push, fetch := ledgersync.PushElsewhere(r.Repo, name)
	switch {
	case p.err != nil && !ledgersync.IsRemoteError(p.err):
		return Check{Name: check, Status: Fail, Message: p.err.Error()}
	case p.err != nil:
		return Check{Name: check, Status: Warn, Message: fmt.Sprintf("%s cannot be reached now: %s; sync and reserve fail until it can "+
			"(git queen reserve --offline holds paths on this machine meanwhile)", name, oneLine(p.err))}
	case last.Push != nil && !last.Push.OK && (last.Push.Cause == ledgersync.Refused):
		return Check{Name: check, Status: Fail, Message: fmt.Sprintf("%s refused the last push of the ledger (%s): %s; %s",
			name, records.Relative(now, last.Push.At), last.Push.Message, ledgersync.RefusedFix)}
	case last.Push != nil && !last.Push.OK && last.Push.Cause == ledgersync.Blocked:
		return Check{Name: check, Status: Fail, Message: fmt.Sprintf("%s could not store the ledger at the last push (%s): %s; "+
			"nothing reads that ref: delete it (git push %s :%s), then git queen sync",
			name, records.Relative(now, last.Push.At), last.Push.Message, name, last.Push.Ref)}
	case last.Push != nil && !last.Push.OK && last.Push.Cause == ledgersync.Aliased:
		return Check{Name: check, Status: Fail, Message: fmt.Sprintf("%s, at the last push of the ledger (%s): %s; "+
			"on the server, run git symbolic-ref --delete refs/queen/ledger (git push %s :refs/queen/ledger would delete %s), then git queen sync",
			name, records.Relative(now, last.Push.At), last.Push.Message, name, last.Push.Ref)}
	case push != "":
		return Check{Name: check, Status: Warn, Message: fmt.Sprintf("%s pushes to %s (remote.%s.pushurl) but fetches from %s: "+
			"unless both are one repository (https and ssh of it), what sync pushes reaches no clone; add a remote that fetches "+
			"and pushes the team's repository (git remote add team URL), then git queen init --remote team", name, push, name, fetch)}
	case last.Fetch != nil && !last.Fetch.OK && last.Fetch.Cause == ledgersync.Hidden:
		return Check{Name: check, Status: Fail, Message: fmt.Sprintf("%s hid its ledger from the last sync (%s): %s; %s",
			name, records.Relative(now, last.Fetch.At), last.Fetch.Message, ledgersync.HiddenFix)}
	case !p.found && last.Push != nil && last.Push.OK:
		return Check{Name: check, Status: Fail, Message: fmt.Sprintf("%s shows fetches no refs/queen/ledger, though this clone pushed it "+
			"there (%s); unless someone deleted it, %s", name, records.Relative(now, last.Push.At), ledgersync.HiddenFix)}
	}
	serves := fmt.Sprintf("%s serves the ledger (refs/queen/ledger at %s)", name, short(p.tip.String()))
	if !p.found {
		serves = fmt.Sprintf("%s answers and has no ledger yet", name)
	}
	pushed := "no push of the ledger remembered yet (the first sync with something to send shows whether it accepts one)"
	switch {
	case last.Push != nil && last.Push.OK:
		pushed = "it accepted the last push (" + records.Relative(now, last.Push.At) + ")"
	case last.Push != nil:
		pushed = "the last push failed (" + records.Relative(now, last.Push.At) + "): " + last.Push.Message
	}
	return ok(check, "%s; %s", serves, pushed)
}

// probed is what doctor's one look at the remote found.
type probed struct {
	limit time.Duration
	tip   object.ID
	found bool
	err   error
}

func oneLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

func short(id string) string { return id[:min(len(id), 12)] }
