package precommit

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
	"github.com/git-queen/git-queen/internal/store"
)

// RefUpdate is one line git gives a pre-push hook: a local ref and commit
// to be pushed as a remote ref that now points at RemoteSHA.
type RefUpdate struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// ParseRefUpdates reads the lines git writes to a pre-push hook's stdin.
func ParseRefUpdates(r io.Reader) ([]RefUpdate, error) {
	var out []RefUpdate
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
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
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// PushRefusal is a commit being pushed that changes a path another droid
// holds exclusively.
type PushRefusal struct {
	Commit      string              `json:"commit"`
	Subject     string              `json:"subject"`
	Path        string              `json:"path"`
	Reservation records.Reservation `json:"reservation"`
}

// PushResult is what the pre-push check found.
type PushResult struct {
	Me       string        `json:"droid"`
	Commits  int           `json:"commits"`
	Refusals []PushRefusal `json:"refusals"`
	Now      time.Time     `json:"now"`
}

// CheckPush checks every commit the push would give the remote that it
// does not have (not reachable from its remote-tracking refs, nor from what
// the remote ref points at now) against the active exclusive reservations:
// whatever route a change took onto the branch (a cherry-pick, a rebase,
// am, an amend, a merge), it leaves the machine by a push. Two git
// processes whatever the number of commits: one rev-list, one diff-tree.
func CheckPush(repo *gitrepo.Repo, s *store.Store, remote string, updates []RefUpdate, identity func() string) (*PushResult, error) {
	res := &PushResult{Refusals: []PushRefusal{}}
	args := []string{"rev-list", "--reverse", "--ignore-missing"}
	n := 0
	for _, u := range updates {
		if strings.Trim(u.LocalSHA, "0") != "" { // a deletion pushes nothing
			n++
		}
	}
	if n == 0 {
		return res, nil
	}
	// The reservations are read while git lists the commits and paths.
	var (
		wg      sync.WaitGroup
		held    *reservations.Exclusives
		errHeld error
	)
	if s != nil {
		res.Now = s.Now()
		wg.Go(func() { held, errHeld = (&reservations.Store{S: s}).ExclusivesAt(res.Now) })
	}
	defer wg.Wait()
	// The remote-tracking refs are excluded by the one --not, and what the
	// remote has by ^ID: after --end-of-options, nothing is an option.
	args = append(args, "--not", "--remotes="+remote, "--not", "--end-of-options")
	for _, u := range updates {
		if strings.Trim(u.LocalSHA, "0") != "" {
			args = append(args, u.LocalSHA)
		}
	}
	for _, u := range updates {
		if strings.Trim(u.RemoteSHA, "0") != "" { // what the remote has (ignored if unknown here)
			args = append(args, "^"+u.RemoteSHA)
		}
	}
	out, err := gitrepo.Git(repo.TopLevel, args...)
	if err != nil {
		return nil, fmt.Errorf("list the commits being pushed: %w", err)
	}
	commits := strings.Fields(out)
	res.Commits = len(commits)
	if len(commits) == 0 || s == nil {
		return res, nil
	}
	changed, subjects, err := changedPaths(repo, commits)
	if err != nil {
		return nil, err
	}
	wg.Wait()
	if errHeld != nil {
		return nil, fmt.Errorf("read the reservations: %w", errHeld)
	}
	var all []string
	seen := map[string]bool{}
	for _, c := range commits {
		for _, p := range changed[c] {
			if !seen[p] {
				seen[p] = true
				all = append(all, p)
			}
		}
	}
	holds := held.Holds("", all)
	if len(holds) == 0 {
		return res, nil
	}
	res.Me = identity()
	byPath := map[string][]reservations.Hold{}
	for _, h := range held.Holds(res.Me, all) {
		byPath[h.Path] = append(byPath[h.Path], h)
	}
	for _, c := range commits {
		for _, p := range changed[c] {
			for _, h := range byPath[p] {
				res.Refusals = append(res.Refusals, PushRefusal{Commit: c, Subject: subjects[c], Path: p, Reservation: h.Reservation})
			}
		}
	}
	return res, nil
}

// changedPaths lists, with one git diff-tree, the paths each commit
// changes against its parent (a merge: the paths it changed against every
// parent, i.e. its own resolution), and each commit's subject.
func changedPaths(repo *gitrepo.Repo, commits []string) (map[string][]string, map[string]string, error) {
	out, err := gitrepo.GitInput(repo.TopLevel, strings.Join(commits, "\n")+"\n",
		"diff-tree", "--stdin", "-r", "-c", "--root", "--no-renames", "--name-only", "--format=%H %s")
	if err != nil {
		return nil, nil, fmt.Errorf("list the paths the pushed commits change: %w", err)
	}
	pushed := make(map[string]bool, len(commits))
	for _, c := range commits {
		pushed[c] = true
	}
	paths := map[string][]string{}
	subjects := map[string]string{}
	current := ""
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		// A commit's header is "ID SUBJECT" (or the bare ID diff-tree
		// echoes for a commit without changes); a path never starts with
		// an id being pushed followed by a space.
		if id, subject, _ := strings.Cut(line, " "); pushed[id] {
			if _, known := subjects[id]; !known {
				current, subjects[id] = id, subject
				continue
			}
		}
		if current != "" {
			paths[current] = append(paths[current], line)
		}
	}
	return paths, subjects, nil
}
