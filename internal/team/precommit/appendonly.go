package precommit

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
)

// Rewrite is a change to a committed line of an append-only store that is
// neither an append, nor a compaction, nor an archive.
type Rewrite struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Msg  string `json:"message"`
}

// checkAppendOnly compares the staged log with the committed one. The
// stores only grow, except in two ways git-queen itself rewrites them:
// compaction (a line goes when a later version of its record stays) and
// archive (every version of a record moves to the _archive log, which must
// be staged too). Anything else changed a committed fact. While a merge,
// rebase or cherry-pick is under way (merging), new lines may sit among
// old ones (the merge driver orders lines by time), so only losses count
// then.
func (in *Input) checkAppendOnly(content *gitrepo.Content, c gitrepo.Change, staged []byte, merging bool) ([]Rewrite, error) {
	// Whether staged starts with HEAD's blob, ending at a line end, is
	// proved by the blob's id (see gitrepo.Content.HeadPrefix).
	size, ok, err := content.HeadPrefix(c, staged)
	if err != nil {
		return nil, fmt.Errorf("read the committed %s: %w", c.Path, err)
	}
	if !ok || size == 0 || size > 0 && staged[size-1] == '\n' {
		return nil, nil // new, or only appended to
	}
	committed, _, err := content.Head(c)
	if err != nil {
		return nil, fmt.Errorf("read the committed %s: %w", c.Path, err)
	}
	return rewritesOf(content, c.Path, committed, staged, merging, "of the committed log")
}

// rewritesOf lists what staged, the staged bytes of the log at path,
// changed of committed, a committed version of it (where says which):
// committed lines gone that are neither compacted nor archived, and
// unless merging, new lines among committed ones.
func rewritesOf(content *gitrepo.Content, path string, committed, staged []byte, merging bool, where string) ([]Rewrite, error) {
	archived := map[string]bool{}
	archivedVersions := map[string][]string{} // record id -> its versions in the archive
	archivePath := strings.TrimSuffix(path, ".jsonl") + "_archive.jsonl"
	if data, ok, err := content.Read(":" + archivePath); err != nil {
		return nil, err
	} else if ok {
		for _, l := range splitLog(data) {
			archived[l.raw] = true
			if l.id != "" {
				archivedVersions[l.id] = append(archivedVersions[l.id], l.raw)
			}
		}
	}
	old, cur := splitLog(committed), splitLog(staged)
	inStaged := map[string]int{} // line -> position in the staged log
	byID := map[string][]int{}   // record id -> its positions in the staged log
	for i, l := range cur {
		inStaged[l.raw] = i
		if l.id != "" {
			byID[l.id] = append(byID[l.id], i)
		}
	}
	inCommitted := map[string]int{}
	lost := map[string]bool{} // ids of records a committed line of is gone
	lastKept := -1            // position in the staged log of the last committed line kept
	for i, l := range old {
		inCommitted[l.raw] = i
		if p, ok := inStaged[l.raw]; ok {
			lastKept = max(lastKept, p)
		} else {
			lost[l.id] = true
		}
	}
	var rewrites []Rewrite
	for i, l := range cur {
		if _, ok := inCommitted[l.raw]; !ok && i < lastKept && !merging && !olderVersion(l, i, cur, byID[l.id], lost) {
			rewrites = append(rewrites, Rewrite{Path: path, Line: l.no,
				Msg: "a new line among committed lines: these logs only grow at the end (a line changed in place?)"})
		}
	}
	for i, l := range old {
		if _, ok := inStaged[l.raw]; ok {
			continue
		}
		switch {
		case archived[l.raw]:
			continue
		case l.id != "" && supersededIn(l, i, cur, byID[l.id], inCommitted, lastKept, merging):
			continue
		case l.id != "" && newerIn(l, archivedVersions[l.id]):
			continue // compacted, then its record archived: a newer version moved
		}
		what := "a committed line is gone"
		if l.id != "" {
			what = fmt.Sprintf("a committed version of %s is gone without a later one (not a compaction) or a copy in %s (not an archive)",
				l.id, filepath.Base(archivePath))
		}
		rewrites = append(rewrites, Rewrite{Path: path, Line: l.no, Msg: what + " (line " + where + ")"})
	}
	return rewrites, nil
}

// logLine is a non-blank line of a log, with its record id ("" if none).
type logLine struct {
	raw string
	id  string
	no  int
}

func splitLog(data []byte) []logLine {
	var out []logLine
	vals := make([][]byte, 1)
	for l := range jsonline.Lines(data) {
		if l.Blank() {
			continue
		}
		id := ""
		if jsonline.ObjectFields(l.Raw, []string{jsonline.DefaultKey}, vals) == nil {
			id, _ = jsonline.String(vals[0])
		}
		out = append(out, logLine{string(l.Raw), id, l.No})
	}
	return out
}

// supersededIn reports whether the staged log keeps a version of gone's
// record that replaces it (gone is the committed line at position i): a
// committed line of the record after it or newer by the version rule (a
// compaction keeps the current version wherever it lies), or an appended
// line of the record (during a merge, any new line of it). versions are
// the positions in cur of the record's lines: looking only at them keeps
// a rewrite of a large log from costing its lines squared.
func supersededIn(gone logLine, i int, cur []logLine, versions []int, inCommitted map[string]int, lastKept int, merging bool) bool {
	for _, j := range versions {
		l := cur[j]
		if p, ok := inCommitted[l.raw]; ok {
			if p > i || records.Newer([]byte(l.raw), []byte(gone.raw)) {
				return true
			}
			continue
		}
		if j > lastKept || merging {
			return true
		}
	}
	return false
}

// olderVersion reports whether l, a new line at position i of cur, is a
// version of a record written before the next one in cur, all of whose
// committed versions are kept: where the merge driver puts a version a
// stash pop, checkout -m, cherry-pick -n or merge --squash brought, none
// of which leaves a sign of a merge. It changes no record's current
// version; a version changed in place loses its committed line, or keeps
// its time.
func olderVersion(l logLine, i int, cur []logLine, versions []int, lost map[string]bool) bool {
	if l.id == "" || lost[l.id] {
		return false
	}
	next := slices.IndexFunc(versions, func(j int) bool { return j > i })
	return next >= 0 && records.VersionTime([]byte(l.raw)).Before(records.VersionTime([]byte(cur[versions[next]].raw)))
}

// newerIn reports whether versions holds a version of gone's record newer
// than gone (compact dropped gone, then archive moved the record).
func newerIn(gone logLine, versions []string) bool {
	return slices.ContainsFunc(versions, func(v string) bool { return records.Newer([]byte(v), []byte(gone.raw)) })
}
