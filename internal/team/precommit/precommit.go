// Package precommit is the check the pre-commit hook runs: a commit may not
// touch paths another droid reserved exclusively, and may not carry broken
// coordination logs (invalid records, conflict markers, union-merge
// duplicates, committed lines rewritten).
//
// It reads what the commit will contain, the index, never the working tree,
// and it fails closed: any error refuses the commit (the caller says how to
// bypass it), because a check that lets a commit through when it cannot
// look is no check.
package precommit

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Input is what the check looks at.
type Input struct {
	Repo *gitrepo.Repo
	// Store is the workspace's store, or nil when the repository has none
	// (then no reservations exist, and only validation applies).
	Store *store.Store
	// Identity finds the committing droid ("" is nobody, whom every
	// exclusive reservation binds). It may run a git process, and it only
	// matters when some reservation holds a staged path, so Run calls it
	// then (usually never), unless ReportIdentity asks for it always.
	Identity func() string
	// ReportIdentity makes Run find the identity even when no reservation
	// needs it, so that Result.Me is filled in (for --json).
	ReportIdentity bool
	Registry       *schema.Registry
	// Limit is the most problems reported per file.
	Limit int
	// Environ is the hook's environment, where git merge names the heads
	// it merges (GITHEAD_<id>; see merging.go).
	Environ []string
}

// Refusal is a staged path another droid holds.
type Refusal struct {
	Path        string              `json:"path"`
	Reservation records.Reservation `json:"reservation"`
	// Commit is, in a merge, the commit no remote has that brought the
	// change ("" for the merge's own change, and outside a merge).
	Commit string `json:"commit,omitempty"`
}

// Result is what the check found.
type Result struct {
	// Me is the identity the check judged for.
	Me string `json:"droid"`
	// Paths are the staged paths checked against reservations.
	Paths    []string  `json:"paths"`
	Refusals []Refusal `json:"refusals"`
	// Invalid holds the staged files that failed validation.
	Invalid []schema.Result `json:"invalid"`
	// Rewrites are changes to committed lines of append-only stores, the
	// first Limit of each file; RewritesOmitted counts the rest by file.
	Rewrites []Rewrite `json:"rewrites"`
	// Symlinks are staged symbolic links in the store directory: a link
	// there would let git-queen's writes land wherever it points, so they
	// are refused whatever queen.toml says (configuration can relax
	// validation, never safety).
	Symlinks        []string       `json:"symlinks,omitempty"`
	RewritesOmitted map[string]int `json:"rewrites_omitted,omitempty"`
	// Problems are problems with the reservations themselves (an
	// unreadable line, a pattern that no longer compiles): they do not
	// refuse the commit, since the committer cannot fix another droid's
	// reservation, but they must not pass unnoticed.
	Problems []jsonl.Problem `json:"-"`
	// Now is when reservations were judged.
	Now time.Time `json:"now"`
	// Merge is set when the commit is a merge: what it joins, and what of
	// it was judged.
	Merge *Merge `json:"merge,omitempty"`
	// Squash says the commit concludes a `git merge --squash`: no merge
	// for the hook to judge, so every staged path is judged as the
	// committer's own change, even one a remote has from its holder.
	Squash bool `json:"squash,omitempty"`
}

// Refused says whether the commit must be refused.
func (r *Result) Refused() bool {
	return len(r.Refusals) > 0 || len(r.Invalid) > 0 || len(r.Rewrites) > 0 || len(r.Symlinks) > 0
}

// Run checks the staged changes. The staged changes (a git process) and
// the reservations (the logs and the committed one) are independent, so
// they are read at once; the identity (another git process) is asked for
// only when a reservation holds a staged path.
func Run(in Input) (*Result, error) {
	res := &Result{Refusals: []Refusal{}, Invalid: []schema.Result{}, Rewrites: []Rewrite{}}
	parents, err := mergeParents(in.Repo, in.Environ)
	if err != nil {
		return nil, fmt.Errorf("find what is being merged: %w", err)
	}
	var (
		wg                             sync.WaitGroup
		changes                        []gitrepo.Change
		held                           *reservations.Exclusives
		mv                             *mergeView
		errStaged, errActive, errMerge error
	)
	wg.Go(func() { changes, errStaged = in.Repo.Staged() })
	if in.ReportIdentity {
		wg.Go(func() { res.Me = in.Identity() })
	}
	if in.Store != nil {
		res.Now = in.Store.Now()
		wg.Go(func() { held, errActive = (&reservations.Store{S: in.Store}).ExclusivesAt(res.Now) })
	}
	if len(parents) > 0 {
		wg.Go(func() { mv, errMerge = readMerge(in.Repo, parents) })
	}
	wg.Wait()
	if errStaged != nil {
		return nil, fmt.Errorf("list the staged changes: %w", errStaged)
	}
	if errActive != nil {
		return nil, fmt.Errorf("read the reservations: %w", errActive)
	}
	if errMerge != nil {
		return nil, errMerge
	}
	if mv != nil {
		res.Merge = &mv.Merge
	} else {
		res.Squash = in.Repo.Squashing()
	}
	exempt := in.storeDir()
	seen := map[string]bool{}
	broughtBy := map[string]string{} // in a merge, the commit no remote has that changed a judged path
	var inStore []string
	for _, c := range changes {
		if c.Status != 'D' && under(c.Path, exempt) {
			inStore = append(inStore, c.Path)
		}
		p := c.Path
		if p == "" || under(p, exempt) || seen[p] {
			continue
		}
		seen[p] = true
		if mv != nil {
			judged, commit := mv.judged(p)
			if !judged {
				mv.Brought = append(mv.Brought, p)
				continue
			}
			broughtBy[p] = commit
		}
		res.Paths = append(res.Paths, p)
	}
	if res.Symlinks, err = in.Repo.StagedSymlinks(inStore); err != nil {
		return nil, fmt.Errorf("look at the staged store files: %w", err)
	}
	if held != nil {
		res.Problems = held.Problems
		holds := held.Holds(res.Me, res.Paths)
		if len(holds) > 0 && !in.ReportIdentity {
			// Some of these may be the committer's own.
			res.Me = in.Identity()
			holds = held.Holds(res.Me, res.Paths)
		}
		if len(holds) > 0 && mv == nil {
			holds = in.notTakenOut(holds)
		}
		for _, h := range holds {
			res.Refusals = append(res.Refusals, Refusal{Path: h.Path, Reservation: h.Reservation, Commit: broughtBy[h.Path]})
		}
	}
	if err := in.validate(changes, mv, res); err != nil {
		return nil, err
	}
	return res, nil
}

// cacheDir is the store's cache directory, where its appends keep the
// logs' indexes; "" without a store.
func (in *Input) cacheDir() string {
	if in.Store == nil {
		return ""
	}
	return in.Store.CacheDir()
}

// statOrNil is the stat of the file at path, nil when there is none.
func statOrNil(path string) os.FileInfo {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return info
}

// storeDir is the store directory relative to the top of the worktree
// (".beads"), exempt from reservations: every droid writes the stores.
func (in *Input) storeDir() string {
	if in.Store != nil && in.Repo.TopLevel != "" {
		rel, err := filepath.Rel(in.Repo.TopLevel, in.Store.WS.BeadsDir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return ".beads"
}

func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// validate checks the staged content of every file the registry knows,
// and, in a merge, that the staged logs keep every parent's lines.
func (in *Input) validate(changes []gitrepo.Change, mv *mergeView, res *Result) error {
	var content *gitrepo.Content
	defer func() {
		if content != nil {
			content.Close()
		}
	}()
	open := func() *gitrepo.Content {
		if content == nil {
			content = in.Repo.OpenContent()
		}
		return content
	}
	memo := memoDir(in.Repo.CommonDir)
	merging := mv != nil || in.Repo.InProgress() != ""
	for _, c := range changes {
		if c.Status == 'D' || !in.Registry.Candidate(c.Path) {
			continue
		}
		if err := in.validateOne(open(), memo, c, merging, res); err != nil {
			return err
		}
	}
	if mv == nil {
		return nil
	}
	for i, differs := range mv.differs {
		for _, e := range differs {
			if !isStoreLog(e.Path) || e.IDs[0] == "" || e.IDs[1] == "" {
				continue // the parent has no such log, or the merge deletes it (as a commit may)
			}
			rewrites, err := in.keptFrom(open(), e, mv.Parents[i])
			if err != nil {
				return err
			}
			in.addRewrites(res, e.Path, rewrites)
		}
	}
	return nil
}

// keptFrom checks that the staged log e keeps every line of parent's
// version of it (e.IDs[0]), but for what compaction and archive drop.
func (in *Input) keptFrom(content *gitrepo.Content, e gitrepo.RawEntry, parent string) ([]Rewrite, error) {
	theirs, ok, err := content.Read(e.IDs[0])
	if err == nil && !ok {
		err = fmt.Errorf("object %s is missing", e.IDs[0])
	}
	if err != nil {
		return nil, fmt.Errorf("read %s of the merged commit %s: %w", e.Path, parent, err)
	}
	staged, ok, err := content.Read(e.IDs[1])
	if err == nil && !ok {
		err = fmt.Errorf("object %s is missing", e.IDs[1])
	}
	if err != nil {
		return nil, fmt.Errorf("read the staged %s: %w", e.Path, err)
	}
	if bytes.HasPrefix(staged, theirs) && (len(theirs) == 0 || theirs[len(theirs)-1] == '\n') {
		return nil, nil // only appended to
	}
	return rewritesOf(content, e.Path, theirs, staged, true, "of the merged commit "+parent[:min(12, len(parent))])
}

// addRewrites records the rewrites found in path, the first Limit of them.
func (in *Input) addRewrites(res *Result, path string, rewrites []Rewrite) {
	if limit := (&schema.Options{Limit: in.Limit}).MaxProblems(); len(rewrites) > limit {
		if res.RewritesOmitted == nil {
			res.RewritesOmitted = map[string]int{}
		}
		res.RewritesOmitted[path] += len(rewrites) - limit
		rewrites = rewrites[:limit]
	}
	res.Rewrites = append(res.Rewrites, rewrites...)
}

// validateOne validates one staged file and, for a store log, checks that
// it only grew. What it proves is remembered by blob id (see memo.go).
func (in *Input) validateOne(content *gitrepo.Content, memo string, c gitrepo.Change, merging bool, res *Result) error {
	head, haveHead := readMemo(memo, c.Head)
	worktree := filepath.Join(in.Repo.TopLevel, filepath.FromSlash(c.Path))
	sums := &runningSums{at: -1}
	var sink gitrepo.Sink = sums
	switch {
	case haveHead && head.indexProves(in.cacheDir(), worktree, statOrNil(worktree)):
		// The file's index may prove the prefix without reading it: the
		// bytes are summed only if it does not.
		sink = nil
	case haveHead:
		sums.at = head.Size
	}
	staged, release, file, err := content.StagedFile(c, sink)
	if err != nil {
		return fmt.Errorf("read the staged %s: %w", c.Path, err)
	}
	defer release()
	// Whether the staged bytes were all read, and summed, on the way.
	summed := len(staged) > 0 && sums.n == int64(len(staged))
	known, haveMemo := readMemo(memo, c.Staged)
	format, _ := in.Registry.FormatFor(c.Path, schema.FirstLine(staged))
	mine := binaryIdentity()
	clean := haveMemo && format != nil && known.Clean == format.Name && known.Binary != "" && known.Binary == mine
	// A log git-queen appended to since HEAD's blob was staged is proved
	// by its index, reading only the new lines; any other by checksums of
	// the committed bytes, which read every one (once).
	appended := haveHead && head.grewFrom(staged, in.cacheDir(), worktree, file)
	switch {
	case appended || !haveHead:
	case summed:
		appended = head.endsLine(staged) && sums.atSum == head.Sum
	default:
		appended = head.provesPrefix(staged, content.Forget)
	}
	if !clean && format != nil {
		opts := schema.Options{Registry: in.Registry, Limit: in.Limit}
		var r schema.Result
		var digest *schema.Digest
		if prev, ok := in.headDigest(memo, c, head, format, appended, mine); ok {
			r, digest, err = schema.ValidateAppend(format, c.Path, staged, prev, opts)
			if err != nil {
				return err
			}
		} else {
			r, digest = schema.ValidateWhole(format, c.Path, staged, opts, content.Forget)
		}
		if !r.Valid() {
			res.Invalid = append(res.Invalid, r)
		} else if c.Staged != "" {
			m := blobMemo{Size: int64(len(staged))}
			switch {
			case appended:
				m.Sum = head.extended(staged)
			case summed:
				m.Sum = sums.sum
			default:
				m.Sum = windowedChecksums(staged, content.Forget)
			}
			if mine != "" {
				m.Clean, m.Binary = r.Format, mine
			}
			writeMemo(memo, c.Staged, m)
			if digest != nil {
				writeDigest(memo, c.Path, c.Head, c.Staged, digest)
			}
		}
	}
	// A log only appended to is vouched for by the memo of the committed bytes.
	if !isStoreLog(c.Path) || appended {
		return nil
	}
	rewrites, err := in.checkAppendOnly(content, c, staged, merging)
	if err != nil {
		return err
	}
	in.addRewrites(res, c.Path, rewrites)
	return nil
}

// headDigest is the digest of HEAD's blob of c's path when the staged file
// only appended to it and it validated clean as format with this binary:
// then only the appended lines need validating.
func (in *Input) headDigest(memo string, c gitrepo.Change, head blobMemo, format *schema.Format, appended bool, mine string) (*schema.Digest, bool) {
	if !appended || !format.Incremental() || mine == "" || head.Binary != mine || head.Clean != format.Name {
		return nil, false
	}
	d, ok := readDigest(memo, c.Head)
	if !ok || d.Format != format.Name || d.Size != head.Size {
		return nil, false
	}
	return d, true
}

// isStoreLog reports the append-only QueenBee logs (not their archives).
func isStoreLog(p string) bool {
	_, ok := records.KindOf(path.Base(p))
	return ok
}
