package precommit

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// A merge is judged by what it brings that no one has judged. Its staged
// changes against HEAD hold the other side's work, and much of that is
// already on a remote (git pull brings the holder's own pushed change):
// it was judged when it was pushed, refusing it now would only make the
// merge impossible, and the advice to unstage it would drop someone
// else's work. So a merge's staged paths are judged when the merge itself
// changed them (its resolution: the result differs from every parent
// there), or when a commit it brings that no remote has changed them
// (a local branch's, which its push would be judged by too). And its
// logs keep every committed line of every parent, in any order (the merge
// driver orders lines by time), except what compaction and archive drop.
//
// Which commits are being merged: git merge sets GITHEAD_<id> in the
// environment of everything it runs, one per head it merges, before it
// merges (builtin/merge.c, cmd_merge, since git 1.6), and pre-merge-commit
// runs before git writes MERGE_HEAD (git 2.39 writes it afterwards, in
// write_merge_state). When a merge stops for conflicts, the commit that
// concludes it runs pre-commit with MERGE_HEAD written. So the hook reads
// the GITHEAD_ variables, else MERGE_HEAD; each must name a commit of the
// repository (a stray variable in a shell is not a merge).

// Merge is a merge being committed, as the check judged it.
type Merge struct {
	// Parents are the commits joined to HEAD.
	Parents []string `json:"parents"`
	// Unpushed are the commits it brings that no remote has (not
	// reachable from HEAD, a remote-tracking ref or FETCH_HEAD): the
	// changes they make are judged, as the merge's own are.
	Unpushed []string `json:"unpushed"`
	// Brought are the staged paths that came from commits a remote has,
	// not judged again.
	Brought []string `json:"brought"`
}

// mergeView is what Run needs to know of a merge: for each other parent,
// the paths where the staged result differs from it, and which of the
// commits brought changes each path.
type mergeView struct {
	Merge
	// differs holds, per parent, the paths where the index differs from
	// it, with the parent's object (IDs[0]) and the index's (IDs[1]).
	differs []map[string]gitrepo.RawEntry
	// sides holds, per parent, the paths its side changed since its merge
	// base with HEAD (nil where git could not say: all count as changed).
	// A result that is that parent's where its side changed nothing is the
	// base's: the merge undid HEAD's change, and that is its own.
	sides []map[string]bool
	// unjudged names, for each path a commit in Unpushed changes, the
	// first such commit.
	unjudged map[string]string
}

// mergeParents returns the commits other than HEAD that the commit being
// made joins: those the GITHEAD_ variables of environ name, else those of
// MERGE_HEAD; each one a commit of the repository.
func mergeParents(repo *gitrepo.Repo, environ []string) ([]string, error) {
	var ids []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if id, ok := strings.CutPrefix(name, "GITHEAD_"); ok && objectID(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		data, err := os.ReadFile(filepath.Join(repo.GitDir, "MERGE_HEAD"))
		if err != nil {
			return nil, nil
		}
		for _, line := range strings.Fields(string(data)) {
			if objectID(line) {
				ids = append(ids, line)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	objects := gitrepo.OpenObjects(repo.CommonDir)
	defer objects.Close()
	head, _ := repo.HeadCommit()
	var parents []string
	for _, id := range ids {
		oid, _ := hex.DecodeString(id)
		kind, _, err := objects.Header(oid)
		if gitrepo.IsNotInProcess(err) {
			kind, err = repo.ObjectType(id)
		}
		if err == nil && kind == "commit" && id != head {
			parents = append(parents, id)
		}
	}
	return parents, nil
}

// readMerge learns what the merge with parents brings: one git diff-index
// per parent, one rev-list of the commits brought that no remote has, and
// one diff-tree of those when there are any.
func readMerge(repo *gitrepo.Repo, parents []string) (*mergeView, error) {
	mv := &mergeView{Merge: Merge{Parents: parents, Unpushed: []string{}, Brought: []string{}}, unjudged: map[string]string{}}
	for _, p := range parents {
		entries, err := repo.DiffIndex(p)
		if err != nil {
			return nil, fmt.Errorf("compare the merge with %s: %w", p, err)
		}
		differs := make(map[string]gitrepo.RawEntry, len(entries))
		for _, e := range entries {
			differs[e.Path] = e
		}
		mv.differs = append(mv.differs, differs)
		side, err := repo.SideChanges("HEAD", p)
		if err != nil {
			side = nil // no single merge base: judged as before, by the parents alone
		}
		mv.sides = append(mv.sides, side)
	}
	// What a remote has: its remote-tracking refs, and what a fetch
	// brought (git pull of a URL leaves only FETCH_HEAD).
	unpushed, _, err := repo.CommitsNotOnRemote(nil, parents, append([]string{"HEAD"}, fetchHead(repo)...))
	if err != nil {
		return nil, fmt.Errorf("list the commits the merge brings: %w", err)
	}
	mv.Unpushed = append(mv.Unpushed, unpushed...)
	if len(mv.Unpushed) == 0 {
		return mv, nil
	}
	changed, err := repo.PathsChangedBy(mv.Unpushed)
	if err != nil {
		return nil, fmt.Errorf("list the paths the commits change: %w", err)
	}
	for _, c := range mv.Unpushed {
		for _, p := range changed[c] {
			if _, ok := mv.unjudged[p]; !ok {
				mv.unjudged[p] = c
			}
		}
	}
	return mv, nil
}

// fetchHead lists the commits FETCH_HEAD names: all were on a remote,
// but for those fetched from this repository itself.
func fetchHead(repo *gitrepo.Repo) []string {
	data, err := os.ReadFile(filepath.Join(repo.GitDir, "FETCH_HEAD"))
	if err != nil {
		return nil
	}
	var ids []string
	for _, line := range strings.Split(string(data), "\n") {
		if id, _, _ := strings.Cut(line, "\t"); objectID(id) && !fetchedFromItself(repo, line) {
			ids = append(ids, id)
		}
	}
	return ids
}

// fetchedFromItself says whether a FETCH_HEAD line ("ID\t\tbranch 'b1'
// of URL") names this repository as where it was fetched from: git fetch
// . b1, or git pull . b1, which git's manual gives as the way to merge a
// local branch, bring local work that no remote has (from another of its
// worktrees, too). git takes a trailing .git off the path it writes
// there: proj names a bare proj.git too.
func fetchedFromItself(repo *gitrepo.Repo, line string) bool {
	i := strings.LastIndex(line, " of ")
	if i < 0 {
		return false
	}
	from := strings.TrimPrefix(line[i+len(" of "):], "file://")
	if !filepath.IsAbs(from) {
		from = filepath.Join(repo.TopLevel, from)
	}
	return repo.SameRepository(from) || repo.SameRepository(from+".git")
}

// judged says whether the merge's staged change at path is to be judged,
// and the commit no remote has that made it ("" for the merge's own).
func (mv *mergeView) judged(path string) (bool, string) {
	for i, differs := range mv.differs {
		if _, ok := differs[path]; !ok && (mv.sides[i] == nil || mv.sides[i][path]) {
			// The result is that parent's, whose side changed it: brought
			// from it, and judged only when a commit no remote has made it.
			commit, unjudged := mv.unjudged[path]
			return unjudged, commit
		}
	}
	return true, "" // the merge's own change
}
