package gitrepo

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// The history questions the hooks ask git: which commits a push or a
// merge brings, what they change, and what they are called. Each is one
// git process, whatever the number of commits, with every id after
// --end-of-options (or on standard input).

// rawDiffOptions are the options of every diff the hooks read: raw
// records, NUL-ended, full object ids, renames as a deletion and an
// addition (both paths seen, no content compared), and gitlinks always
// shown.
var rawDiffOptions = []string{"-r", "--raw", "-z", "--no-abbrev", "--no-renames", "--ignore-submodules=none"}

// CommitsNotOnRemote lists, oldest first, the commits reachable from tips
// but neither from the ids in known nor from the remote-tracking refs of
// remotes (none named: of every remote): what a push or a merge brings
// that no remote has; and, by id, the parents of those that are merges.
// Ids this repository lacks are ignored.
func (r *Repo) CommitsNotOnRemote(remotes []string, tips, known []string) ([]string, map[string][]string, error) {
	// The remote-tracking refs are excluded between the two --not, the
	// known ids by ^ID: after --end-of-options, nothing is an option. The
	// ids go on standard input: a remote asked for its tips (a bare clone's
	// push) shows more than a command line holds.
	args := []string{"rev-list", "--reverse", "--parents", "--ignore-missing", "--not"}
	if len(remotes) == 0 {
		args = append(args, "--remotes")
	}
	for _, remote := range remotes {
		for _, nested := range r.RemotesUnder(remote) {
			args = append(args, "--exclude="+nested+"/*") // another remote's refs, not remote's
		}
		args = append(args, "--remotes="+remote)
	}
	args = append(args, "--stdin", "--not", "--end-of-options")
	for _, name := range tips {
		if !isObjectID(name) { // HEAD, ID^: names, a few
			args = append(args, name)
		}
	}
	for _, name := range known {
		if !isObjectID(name) {
			args = append(args, "^"+name)
		}
	}
	out, err := GitInput(r.TopLevel, idLines(tips, "")+idLines(known, "^"), args...)
	if err != nil {
		return nil, nil, err
	}
	var commits []string
	merges := map[string][]string{}
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		commits = append(commits, f[0])
		if len(f) > 2 {
			merges[f[0]] = f[1:]
		}
	}
	return commits, merges, nil
}

// RemotesUnder lists the remotes whose names start with name and a slash
// (origin/fork under origin): their remote-tracking refs lie among name's,
// refs/remotes/origin/fork/main, and are no branch of name's.
func (r *Repo) RemotesUnder(name string) []string {
	var under []string
	for _, remote := range r.ReadConfig().Subsections("remote", "fetch") {
		if strings.HasPrefix(remote, name+"/") && !slices.Contains(under, remote) {
			under = append(under, remote)
		}
	}
	return under
}

// PathsChangedBy lists, with one git diff-tree, the paths each commit
// changes against its parent (a merge: the paths it changed against every
// parent, i.e. its own resolution).
func (r *Repo) PathsChangedBy(commits []string) (map[string][]string, error) {
	set := make(map[string]bool, len(commits))
	for _, c := range commits {
		set[c] = true
	}
	return r.diffTreeStdin(strings.Join(commits, "\n")+"\n", set, "-c", "--root")
}

// diffTreeStdin is the paths each of commits changes, as `git diff-tree
// --stdin` with options and rawDiffOptions reads them from input.
func (r *Repo) diffTreeStdin(input string, commits map[string]bool, options ...string) (map[string][]string, error) {
	out, err := GitInput(r.TopLevel, input, append(append([]string{"diff-tree", "--stdin"}, options...), rawDiffOptions...)...)
	if err != nil {
		return nil, err
	}
	return parseDiffTree(out, commits)
}

// DiffIndex lists the paths where the index differs from commit, with
// the commit's object (IDs[0]) and the index's (IDs[1]).
func (r *Repo) DiffIndex(commit string) ([]RawEntry, error) {
	out, err := Git(r.TopLevel, append(append([]string{"diff-index", "--cached"}, rawDiffOptions...), "--end-of-options", commit)...)
	if err != nil {
		return nil, err
	}
	return parseDiffIndex(out)
}

// PathsFromFirstParent lists, with one git diff-tree, the paths where each
// merge in merges (by id, its parents, first parent first) differs from its
// first parent: what the merge brought onto the branch it was made on.
func (r *Repo) PathsFromFirstParent(merges map[string][]string) (map[string][]string, error) {
	if len(merges) == 0 {
		return map[string][]string{}, nil
	}
	// A line "COMMIT PARENT" compares the commit with that parent alone.
	var lines strings.Builder
	set := make(map[string]bool, len(merges))
	for merge, parents := range merges {
		lines.WriteString(merge + " " + parents[0] + "\n")
		set[merge] = true
	}
	return r.diffTreeStdin(lines.String(), set)
}

// SideChanges lists the paths commit side changes against its merge base
// with commit base (git diff-tree --merge-base): what that side of a
// merge into base brings. It fails where there is no single merge base.
func (r *Repo) SideChanges(base, side string) (map[string]bool, error) {
	return r.pathsDiffering(true, base, side)
}

// PathsBetween lists the paths where commit to's tree differs from
// commit from's.
func (r *Repo) PathsBetween(from, to string) (map[string]bool, error) {
	return r.pathsDiffering(false, from, to)
}

// PathsIn lists every path of commit's tree: where deleting a ref that
// points at commit leaves nothing as it was.
func (r *Repo) PathsIn(commit string) (map[string]bool, error) {
	out, err := Git(r.TopLevel, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", commit)
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	for p := range strings.SplitSeq(out, "\x00") {
		if p != "" {
			paths[p] = true
		}
	}
	return paths, nil
}

// RefTips lists the refs whose names start with prefix, each with the id
// it points at, through git: the in-process ref reader (gitrepo/refs)
// reads SHA-1 ids only, and a SHA-256 repository's refs read as none.
func (r *Repo) RefTips(prefix string) (map[string]string, error) {
	out, err := Git(r.TopLevel, "for-each-ref", "--format=%(objectname) %(refname)", "--", prefix)
	if err != nil {
		return nil, err
	}
	tips := map[string]string{}
	for line := range strings.Lines(out) {
		if id, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && strings.HasPrefix(name, prefix) {
			tips[name] = id
		}
	}
	return tips, nil
}

// pathsDiffering lists the paths git diff-tree finds differing between
// two commits (from their merge base to the second, with mergeBase).
func (r *Repo) pathsDiffering(mergeBase bool, from, to string) (map[string]bool, error) {
	args := append([]string{"diff-tree"}, rawDiffOptions...)
	if mergeBase {
		args = append(args, "--merge-base")
	}
	args = append(args, "--end-of-options", from, to)
	out, err := Git(r.TopLevel, args...)
	if err != nil {
		return nil, err
	}
	entries, err := parseDiffIndex(out)
	if err != nil {
		return nil, err
	}
	changed := make(map[string]bool, len(entries))
	for _, e := range entries {
		changed[e.Path] = true
	}
	return changed, nil
}

// CommitsLeaving lists the commits reachable from the ids in old but not
// from those in new: what refs moved from old to new lose (none for a
// fast-forward). Ids this repository lacks are ignored.
//
// The ids go to git on its standard input, each once: new holds the tip of
// every remote-tracking ref, and a repository with 60,000 remote branches
// has more than a command line holds (2 MiB on Linux, 32 KiB on Windows),
// which refused every push.
func (r *Repo) CommitsLeaving(old, new []string) ([]string, error) {
	// Each list's ids once: an id in both is excluded, as git reads ID ^ID.
	revs := idLines(old, "") + idLines(new, "^")
	out, err := GitInput(r.TopLevel, revs, "rev-list", "--ignore-missing", "--stdin")
	return strings.Fields(out), err
}

// CommitSubjects reads the subject of each commit, by id; a commit git
// cannot read is left out.
//
// The ids go on git's standard input: a push can be refused for more
// commits than a command line holds (32 KiB on Windows: 780 ids), and
// the refusal then named none of their subjects.
func (r *Repo) CommitSubjects(commits []string) map[string]string {
	revs := idLines(commits, "")
	subjects := map[string]string{}
	if revs == "" {
		return subjects // git log of no revision would show HEAD
	}
	out, err := GitInput(r.TopLevel, revs, "log", "--no-walk=unsorted", "-z", "--format=%H %s", "--stdin")
	if err != nil {
		return subjects
	}
	for rec := range strings.SplitSeq(out, "\x00") {
		if id, subject, ok := strings.Cut(strings.TrimPrefix(rec, "\n"), " "); ok {
			subjects[id] = subject
		}
	}
	return subjects
}

// idLines is each object id among ids once, a line each after prefix:
// only ids reach git, whose --stdin refuses options, and nothing else is
// one.
func idLines(ids []string, prefix string) string {
	var lines strings.Builder
	seen := map[string]bool{}
	for _, id := range ids {
		if isObjectID(id) && !seen[id] {
			seen[id] = true
			lines.WriteString(prefix + id + "\n")
		}
	}
	return lines.String()
}

// ObjectType is the type git gives object id ("commit", "tree", ...).
func (r *Repo) ObjectType(id string) (string, error) {
	return gitLine(r.TopLevel, "cat-file", "-t", "--end-of-options", id)
}

// IsAncestor reports whether commit ancestor is commit or one of its
// ancestors, as git answers it (from its commit-graph where it has one).
// Both are commit ids.
func (r *Repo) IsAncestor(ancestor, commit string) (bool, error) {
	if !isObjectID(ancestor) || !isObjectID(commit) {
		return false, fmt.Errorf("is %q an ancestor of %q: both must be commit ids", ancestor, commit)
	}
	err := gitDo(r.TopLevel, "merge-base", "--is-ancestor", "--end-of-options", ancestor, commit)
	if exit, ok := errors.AsType[*exec.ExitError](err); ok && exit.ExitCode() == 1 {
		return false, nil
	}
	return err == nil, err
}

// ResolveCommit is the id of the commit rev names (a branch, a tag, an
// id, origin/main~2); the error says rev names none.
func (r *Repo) ResolveCommit(rev string) (string, error) {
	id, err := gitLine(r.TopLevel, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q names no commit here: %w", rev, err)
	}
	return id, nil
}

// HasCommit reports whether HEAD names a commit (false on a branch with
// no commit yet).
func (r *Repo) HasCommit() bool {
	return gitDo(r.TopLevel, "rev-parse", "--verify", "-q", "HEAD") == nil
}
