package precommit

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/gitrepo/refs"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// RefUpdate is one line git gives a pre-push hook: a local ref and commit
// to be pushed as a remote ref that now points at RemoteSHA.
type RefUpdate struct {
	LocalRef  string `json:"local_ref"`
	LocalSHA  string `json:"local_sha"`
	RemoteRef string `json:"remote_ref"`
	RemoteSHA string `json:"remote_sha"`
}

// ParseRefUpdates reads the lines git writes to a pre-push hook's stdin.
// The local ref is what the user named, which may hold spaces (a revision
// such as main@{2 days ago}); the three fields after it hold none.
func ParseRefUpdates(r io.Reader) ([]RefUpdate, error) {
	var out []RefUpdate
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if n := len(f); n > 4 { // the local ref as the user wrote it: git push origin 'main@{1 hour ago}:x'
			f = append([]string{strings.Join(f[:n-3], " ")}, f[n-3:]...)
		}
		if len(f) != 4 || !objectID(f[1]) || !objectID(f[3]) {
			return nil, fmt.Errorf("pre-push: unexpected line %q from git (want: local-ref local-id remote-ref remote-id)", sc.Text())
		}
		out = append(out, RefUpdate{f[0], f[1], f[2], f[3]})
	}
	return out, sc.Err()
}

// objectID says whether s is a full object name in hex (SHA-1 or
// SHA-256), as git gives the pre-push hook: nothing else is handed on to
// git as a revision.
func objectID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// PushRefusal is a commit being pushed that changes a path another droid
// holds exclusively.
type PushRefusal struct {
	Commit      string              `json:"commit"`
	Subject     string              `json:"subject"`
	Path        string              `json:"path"`
	Reservation records.Reservation `json:"reservation"`
	// Dropped says the push takes the commit off the remote (a force push
	// that rewinds a ref), undoing its change to the path.
	Dropped bool `json:"dropped,omitempty"`
}

// PushResult is what the pre-push check found.
type PushResult struct {
	Me       string        `json:"droid"`
	Commits  int           `json:"commits"`
	Refusals []PushRefusal `json:"refusals"`
	Now      time.Time     `json:"now"`
}

// PushInput is what the pre-push check looks at.
type PushInput struct {
	Repo *gitrepo.Repo
	// Store holds the reservations (nil: there are none to judge by).
	Store *store.Store
	// Remote is the remote being pushed to, as git names it to the hook:
	// its remote-tracking refs say what it already has.
	Remote string
	// Hub is the remote the team shares its ledger through (queen.remote;
	// origin when none is set): what it has was judged when it was pushed
	// there, so a push to another remote (a fork, a mirror) is judged on
	// what neither has, not on all the history it carries.
	Hub string
	// Known lists commits the remote shows, asked where this clone keeps
	// no remote-tracking refs of it (git clone --bare): what they reach
	// was judged when it was pushed there.
	Known    []string
	Updates  []RefUpdate
	Identity func() string
	// Refresh, when set, brings what the remote holds now before the
	// reservations are read (the hook's fetch of the remote's ledger). It
	// is called only when the push carries commits, while git lists the
	// paths they change.
	Refresh func()
}

// CheckPush checks every commit the push would give the remote that it
// does not have (not reachable from its remote-tracking refs or the hub's,
// nor from what the remote ref points at now) against the active
// exclusive reservations: whatever route a change took onto the branch (a
// cherry-pick, a rebase, am, an amend, a merge), it leaves the machine by
// a push. And a force push that rewinds a ref takes commits off the
// remote: their changes to a path another droid holds, where the push
// leaves it other than the remote had it, are refused too, and so are
// those a deletion takes off. Four git processes whatever the number of
// commits: two rev-lists (at once), then a diff-tree, and one more for the
// merges (addTakenBack); then one for each side of a merge that may take
// back a held path, one per rewound ref, one ls-tree per deletion that
// takes commits off, one rev-parse per annotated tag moved or deleted, one
// git log for the subjects of the commits it refuses. In a SHA-256
// repository the remote-tracking refs are read with one for-each-ref, and
// a config git-queen cannot read itself costs one git config --list for
// the remotes' names.
func CheckPush(in PushInput) (*PushResult, error) {
	res := &PushResult{Refusals: []PushRefusal{}}
	var tips, have []string
	// Updates of a ref the remote has: a force push or a deletion may take
	// commits off it.
	var rewound []RefUpdate
	for _, u := range in.Updates {
		if strings.Trim(u.LocalSHA, "0") != "" { // a deletion pushes nothing
			tips = append(tips, u.LocalSHA)
		}
		if strings.Trim(u.RemoteSHA, "0") != "" { // what the remote has (ignored if unknown here)
			have = append(have, u.RemoteSHA)
			rewound = append(rewound, u)
		}
	}
	if len(tips)+len(rewound) == 0 {
		return res, nil
	}
	// The remotes whose refs were judged, each once; none named: every remote's.
	judged := slices.DeleteFunc(slices.Compact([]string{in.Remote, in.Hub}), func(r string) bool { return r == "" })
	// What the push brings and what it takes off the remote, at once.
	var (
		drops     pushDrops
		errDrops  error
		listDrops sync.WaitGroup
	)
	listDrops.Go(func() { drops, errDrops = dropsOf(in.Repo, rewound, in.Remote, judged) })
	commits, merges, err := in.Repo.CommitsNotOnRemote(judged, tips, append(have, in.Known...))
	listDrops.Wait()
	if err != nil {
		return nil, fmt.Errorf("list the commits being pushed: %w", err)
	}
	if errDrops != nil {
		return nil, errDrops
	}
	res.Commits = len(commits)
	dropped, undone := drops.commits, drops.undone
	if len(commits)+len(dropped)+len(drops.unseen) == 0 || in.Store == nil {
		return res, nil
	}
	// The remote's ledger is fetched, and the reservations read, while git
	// lists the paths.
	var (
		wg      sync.WaitGroup
		held    *reservations.Exclusives
		errHeld error
	)
	wg.Go(func() {
		if in.Refresh != nil {
			in.Refresh()
		}
		res.Now = in.Store.Now()
		held, errHeld = (&reservations.Store{S: in.Store}).ExclusivesAt(res.Now)
	})
	judgedCommits := append(slices.Clone(commits), dropped...) // what the push brings, then what it takes off
	changed, err := in.Repo.PathsChangedBy(judgedCommits)
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("list the paths the commits change: %w", err)
	}
	if errHeld != nil {
		return nil, fmt.Errorf("read the reservations: %w", errHeld)
	}
	if len(drops.unseen) > 0 {
		// What it replaces cannot be judged: refused while another droid
		// holds anything, as what it takes off may be that droid's change.
		if res.Me = in.Identity(); held.AnyBesides(res.Me) {
			return nil, &UnseenError{Remote: in.Remote, Updates: drops.unseen}
		}
	}
	if err := addTakenBack(in.Repo, merges, changed, held); err != nil {
		return nil, err
	}
	// A dropped commit's change counts where the push leaves the path
	// other than the remote had it: the change is undone there.
	for _, c := range dropped {
		changed[c] = slices.DeleteFunc(slices.Clone(changed[c]), func(p string) bool { return !undone[p] })
	}
	var all []string // every path judged, once
	for _, c := range judgedCommits {
		all = append(all, changed[c]...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(held.Holds("", all)) == 0 {
		return res, nil
	}
	res.Me = in.Identity()
	byPath := map[string][]reservations.Hold{}
	for _, h := range held.Holds(res.Me, all) {
		byPath[h.Path] = append(byPath[h.Path], h)
	}
	var refused []string
	for i, c := range judgedCommits {
		for _, p := range changed[c] {
			for _, h := range byPath[p] {
				res.Refusals = append(res.Refusals, PushRefusal{Commit: c, Path: p, Reservation: h.Reservation, Dropped: i >= len(commits)})
				if len(refused) == 0 || refused[len(refused)-1] != c {
					refused = append(refused, c)
				}
			}
		}
	}
	if len(refused) > 0 {
		subject := in.Repo.CommitSubjects(refused)
		for i := range res.Refusals {
			res.Refusals[i].Subject = subject[res.Refusals[i].Commit]
		}
	}
	return res, nil
}

// dropsOf lists the commits the updates of remote take off it (a force
// push that rewinds a ref: none for a fast-forward), and the paths where
// such an update leaves the ref's tree other than the remote had it. A
// commit still on another ref of the remote's (a remote-tracking ref of
// remotes other than the rewound ref's own, read without git) is not
// taken off it. One git process, and one more for each rewound ref (and
// one for each whose remote commit is no remote-tracking ref's tip here).
func dropsOf(repo *gitrepo.Repo, updates []RefUpdate, remote string, remotes []string) (pushDrops, error) {
	var d pushDrops
	if len(updates) == 0 {
		return d, nil
	}
	tracking := map[string]string{}
	if len(remotes) == 0 {
		remotes = []string{""} // every remote's
	}
	for _, r := range remotes {
		// A remote git names by its URL (../fork.git) has no tracking
		// refs: its name must not lead the walk out of refs/remotes/.
		prefix := path.Clean("refs/remotes/"+r) + "/"
		if !strings.HasPrefix(prefix, "refs/remotes/") {
			continue
		}
		var tips map[string]string
		var err error
		if gitrepo.CheckObjectFormat(repo.CommonDir) == nil {
			tips, err = refs.Open(repo.CommonDir).Tips(prefix)
		} else {
			tips, err = repo.RefTips(prefix) // SHA-256 ids, which only git reads
		}
		if err != nil {
			return d, fmt.Errorf("read the remote-tracking refs: %w", err)
		}
		for _, nested := range repo.RemotesUnder(r) { // origin/fork's refs are not origin's
			maps.DeleteFunc(tips, func(name, _ string) bool { return strings.HasPrefix(name, "refs/remotes/"+nested+"/") })
		}
		maps.Copy(tracking, tips)
	}
	known := map[string]bool{} // commits this clone has: a remote-tracking ref's tip
	for _, id := range tracking {
		known[id] = true
	}
	for _, u := range updates {
		if known[u.RemoteSHA] {
			continue
		}
		if _, err := repo.ObjectType(u.RemoteSHA); err != nil {
			d.unseen = append(d.unseen, u) // never fetched: what it replaces is not here to judge
		}
	}
	var old, new []string
	for _, u := range updates {
		old = append(old, u.RemoteSHA)
		deletion := strings.Trim(u.LocalSHA, "0") == ""
		if !deletion {
			new = append(new, u.LocalSHA)
		}
		// The rewound ref's own tracking ref holds what it loses: by its
		// name, as git's default refspec tracks it, else by its tip. A
		// deleted ref's goes by its name alone (of the remote or, pushed
		// to by URL, the hub): another branch at its tip keeps its commits.
		branch := strings.TrimPrefix(u.RemoteRef, "refs/heads/")
		own := "refs/remotes/" + remote + "/" + branch
		if _, ok := tracking[own]; ok && strings.HasPrefix(u.RemoteRef, "refs/heads/") {
			delete(tracking, own)
			continue
		}
		if deletion {
			for _, r := range remotes {
				delete(tracking, "refs/remotes/"+r+"/"+branch)
			}
			continue
		}
		maps.DeleteFunc(tracking, func(_, id string) bool { return id == u.RemoteSHA })
	}
	for _, id := range tracking {
		new = append(new, id)
	}
	dropped, err := repo.CommitsLeaving(old, new)
	if err != nil || len(dropped) == 0 {
		return d, err
	}
	undone := map[string]bool{}
	for _, u := range updates {
		tip := u.RemoteSHA
		if strings.HasPrefix(u.RemoteRef, "refs/tags/") && !slices.Contains(dropped, tip) {
			tip, _ = repo.ResolveCommit(tip) // an annotated tag: the commit it names
		}
		if !slices.Contains(dropped, tip) {
			continue // a fast-forward, or a remote commit this clone lacks
		}
		var paths map[string]bool
		var err error
		if strings.Trim(u.LocalSHA, "0") == "" {
			paths, err = repo.PathsIn(u.RemoteSHA) // a deletion leaves none of its paths as the remote had them
		} else {
			paths, err = repo.PathsBetween(u.RemoteSHA, u.LocalSHA)
		}
		if err != nil {
			return d, fmt.Errorf("compare %s with what the remote has: %w", u.RemoteRef, err)
		}
		maps.Copy(undone, paths)
	}
	d.commits, d.undone = dropped, undone
	return d, nil
}

// pushDrops is what a push takes off the remote: the commits (commits),
// the paths where it leaves a rewound ref other than the remote had it
// (undone), and the updates of a ref whose remote commit this clone never
// fetched (unseen), which replace commits no check here can see.
type pushDrops struct {
	commits []string
	undone  map[string]bool
	unseen  []RefUpdate
}

// UnseenError refuses a push that replaces a remote commit this clone
// never fetched, while another droid holds anything. git feeds the hook
// such a ref whether or not the push is forced: without --force git then
// refuses it itself (the remote has work this clone lacks); with --force
// it would take commits off the remote that no check here can see.
type UnseenError struct {
	Remote  string
	Updates []RefUpdate
}

func (e *UnseenError) Error() string {
	u := e.Updates[0]
	would := ". Without --force git refuses this push anyway (the remote has work this clone does not); with --force it would"
	if strings.Trim(u.LocalSHA, "0") == "" {
		would = ": deleting it would"
	}
	return fmt.Sprintf("%s on %s is at %s, a commit this clone never fetched%s take commits off %s that no check here can see, "+
		"another droid's change to a path it holds among them", u.RemoteRef, e.Remote, u.RemoteSHA[:min(12, len(u.RemoteSHA))], would, e.Remote)
}

// WaysOut says how to push what an UnseenError refused.
func (e *UnseenError) WaysOut() string {
	return fmt.Sprintf("fetch them (git fetch %s), rebase or merge onto them, and push again; or replace them unseen with git push --force --no-verify", e.Remote)
}
