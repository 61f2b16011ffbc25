package app

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/merge"
)

// ResolveRequest names the files to repair ("" for the unmerged JSONL
// files, else the tracked ones with merge debris); Check changes nothing.
type ResolveRequest struct {
	Files    []string
	Check    bool
	Format   string
	Interval int
}

// Resolved is what resolve did to one file.
type Resolved struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Source is where the merge inputs came from: "index" (the stages of
	// an unfinished merge), "markers" (conflict markers in the file),
	// "duplicates" (a union merge's repeated lines), or "clean".
	Source   string         `json:"source"`
	Changed  bool           `json:"changed"`
	Staged   bool           `json:"staged"`
	Conflict bool           `json:"conflict"`
	Reports  []merge.Report `json:"reports"`
}

// Resolve rewrites JSONL files merged without the driver (conflict
// markers, union duplicates) into what the driver would have produced.
// A file still conflicted, or one that would change with Check, is a
// FailedError whose result lists every file.
var Resolve = UseCase[ResolveRequest, []Resolved]{Name: "resolve", run: resolve}

func resolve(e *Env, r ResolveRequest) ([]Resolved, error) {
	top := ""
	if repo, err := gitrepo.Discover(e.Dir); err == nil {
		top = repo.TopLevel
	}
	files := r.Files
	if len(files) == 0 {
		if top == "" {
			return nil, &UsageError{Command: "resolve", Msg: "not in a git repository: name the files to repair"}
		}
		var err error
		if files, err = unmergedJSONL(top); err != nil {
			return nil, err
		}
		if len(files) == 0 {
			// No merge under way: the tracked logs a merge without the
			// driver left debris in (markers, union duplicates), which is
			// what validate sends people here for.
			if files, err = e.damagedJSONL(r, top); err != nil {
				return nil, err
			}
		}
		for i, f := range files {
			files[i] = filepath.Join(top, f)
		}
	}
	// Every file is read and merged before any is written: one that
	// cannot be leaves all of them as they were.
	var steps []resolveStep
	unsettled := 0
	for _, f := range files {
		step, err := e.resolveFile(r, top, f)
		if err != nil {
			return nil, err
		}
		steps = append(steps, step)
		if step.Conflict || (r.Check && step.Changed) {
			unsettled++
		}
	}
	results, written := []Resolved{}, []string{}
	for _, step := range steps {
		if err := step.write(top, &written); err != nil {
			if len(written) > 0 {
				err = fmt.Errorf("resolve wrote %s, then failed: %w", strings.Join(written, ", "), err)
			}
			return nil, err
		}
		results = append(results, step.Resolved)
	}
	if unsettled > 0 {
		what := "still conflicted"
		if r.Check {
			what = "in need of repair"
		}
		return results, failed(fmt.Errorf("%d of %d files %s", unsettled, len(results), what))
	}
	return results, nil
}

// resolveStep is one file's repair, worked out and not yet written.
type resolveStep struct {
	Resolved
	abs, rel string
	bytes    []byte // what to write, or nil
	stage    bool
}

// write writes and stages the file as the step says, adding its path to
// written once it has changed.
func (s *resolveStep) write(top string, written *[]string) error {
	if s.bytes != nil {
		if err := jsonl.WriteFileAtomic(s.abs, s.bytes); err != nil {
			return fmt.Errorf("resolve: %w", err)
		}
		*written = append(*written, s.Path)
	}
	if s.stage {
		if err := gitrepo.Stage(top, s.rel); err != nil {
			return err
		}
		s.Staged = true
	}
	return nil
}

// resolveFile works out the repair of one file (a path relative to the
// working directory).
func (e *Env) resolveFile(r ResolveRequest, top, file string) (resolveStep, error) {
	abs := e.abs(file)
	rel, relDir := file, e.Dir
	if top != "" {
		// The repository's path of the file is where its directory's links
		// lead (cd link, for ln -s sub link, names sub/FILE as link/FILE);
		// the file itself may be a link git tracks.
		if r, ok := relativeTo(links.Resolve(top), links.Entry(abs)); ok {
			rel, relDir = r, top
		}
	}
	format, err := PathFormat(relDir, r.Format, rel)
	if err != nil {
		return resolveStep{}, err
	}
	opts := merge.Options{Format: format, CheckpointInterval: r.Interval, TextMerge: textMerge(e.Dir, 7, rel)}
	out := Resolved{Path: file}

	var res merge.Result
	var sides [][]byte // what was merged: the stages, or what the markers hold
	stages, err := gitrepo.IndexStages(top, rel)
	if err != nil {
		return resolveStep{}, err
	}
	data, readErr := regular.Read(abs, 0) // a link to a device or a pipe is no log
	if _, ok := errors.AsType[*regular.NotRegularError](readErr); ok {
		return resolveStep{}, fmt.Errorf("resolve: %w; resolve repairs only files: name the file itself", readErr)
	}
	if stages == nil && errors.Is(readErr, fs.ErrNotExist) {
		return resolveStep{}, &UsageError{Command: "resolve", Msg: file + ": no such file; resolve repairs the JSONL files a merge left " +
			"with conflict markers or union duplicates (without FILE, it finds them)"}
	}
	switch {
	case stages != nil:
		if stages[1] == nil || stages[2] == nil {
			return resolveStep{}, fmt.Errorf("%s was deleted on one side of the merge: keep it with `git add %s` or drop it with `git rm %s`", file, file, file)
		}
		out.Source, sides = "index", stages
		res, err = merge.Merge(stages[0], stages[1], stages[2], rel, opts)
		if err == nil && readErr == nil && handEdited(data, res.Bytes(), stages) {
			return resolveStep{}, fmt.Errorf("resolve: %s was changed since the merge stopped (it holds no conflict markers, and neither side "+
				"nor the merge): resolve would replace it with the merge of the index stages. To keep your change: git add %s; "+
				"to merge it with the driver again: git checkout -m -- %s, then git queen resolve %s", file, file, file, file)
		}
	case readErr != nil:
		return resolveStep{}, fmt.Errorf("resolve: %w", readErr)
	default:
		out.Source = "clean"
		if c := merge.SplitConflicts(data); c.Hunks > 0 {
			out.Source, sides = "markers", [][]byte{c.Base, c.Ours, c.Theirs}
		}
		res, err = merge.Repair(data, rel, opts)
		if out.Source == "clean" && len(res.Reports) > 0 {
			out.Source = "duplicates"
		}
	}
	if err != nil {
		return resolveStep{}, fmt.Errorf("resolve %s: %w", file, err)
	}
	if sides != nil && crlfResult(sides[0], sides[1], sides[2]) {
		res = merge.WithCRLF(res) // the line ends the driver writes
	}
	out.Format, out.Conflict, out.Reports = string(res.Format), res.Conflict, jsonline.NonNil(res.Reports)
	out.Changed = readErr != nil || !bytes.Equal(data, res.Bytes())
	step := resolveStep{Resolved: out, abs: abs, rel: rel}
	if r.Check {
		return step, nil
	}
	if out.Changed {
		if err := ledAway("resolve", file, abs, "resolve writes a file named in the worktree only there, where git commits it; "+
			"remove the link, or name the file where it lies"); err != nil {
			return resolveStep{}, err
		}
		step.bytes = res.Bytes()
	}
	step.stage = stages != nil && !res.Conflict
	return step, nil
}

// unmergedJSONL lists the unmerged paths that are JSONL, by name or by the
// queen-format attribute, relative to the top level.
func unmergedJSONL(top string) ([]string, error) {
	unmerged, err := gitrepo.UnmergedPaths(top)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, p := range unmerged {
		if ext := filepath.Ext(p); ext == ".jsonl" || ext == ".ndjson" || ext == ".jsonlines" {
			files = append(files, p)
		} else if f, err := PathFormat(top, "", p); err == nil && f != merge.Auto && f != merge.Text {
			files = append(files, p)
		}
	}
	return files, nil
}

// damagedJSONL lists the tracked JSONL files that a repair would change.
func (e *Env) damagedJSONL(r ResolveRequest, top string) ([]string, error) {
	tracked, err := gitrepo.TrackedFiles(top, "*.jsonl", "*.ndjson", "*.jsonlines")
	if err != nil {
		return nil, err
	}
	r.Check = true
	var files []string
	for _, p := range tracked {
		res, err := e.resolveFile(r, top, filepath.Join(top, p))
		if _, ok := errors.AsType[*regular.NotRegularError](err); ok {
			continue // a symbolic link git tracks, to no file: no merge left debris in it
		}
		if err != nil {
			return nil, err
		}
		if res.Changed || res.Conflict {
			files = append(files, p)
		}
	}
	return files, nil
}

// handEdited reports whether the worktree file of an unmerged path was
// changed since the merge stopped, so that writing the merge of the index
// stages over it would lose the change: it holds no conflict markers (git's
// text merge leaves them), and it is neither the merge nor a stage (a
// driver that failed leaves ours; git checkout --theirs puts theirs).
// Line ends are compared as LF: git may check a file out with CRLF.
func handEdited(worktree, merged []byte, stages [][]byte) bool {
	if merge.SplitConflicts(worktree).Hunks > 0 {
		return false
	}
	lf := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")) }
	w := lf(worktree)
	return !bytes.Equal(w, lf(merged)) && !slices.ContainsFunc(stages, func(s []byte) bool { return s != nil && bytes.Equal(w, lf(s)) })
}
