package app

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/domain/work"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// ReadyRequest asks for the work that is ready to take, and optionally
// takes the first of it.
type ReadyRequest struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"list at most this many, the first in order (default 50 for a tool; the result's more says how many were left out)"`
	Claim  bool   `json:"claim,omitempty" jsonschema:"claim the first ready item, as claim does (published through the remote before it counts); if another clone took it first, the next one is tried"`
	Reason string `json:"reason,omitempty" jsonschema:"with claim: why, in a few words"`
	// Streams are st stream files to read besides those queen.toml
	// names: relative to the working directory on the command line, to
	// the top of the repository through MCP (Env.PathsFromTop).
	Streams []string `json:"streams,omitempty" jsonschema:"st stream files to read besides those .beads/queen.toml names (paths relative to the top of the repository)"`
	// Offline claims on this machine without publishing, as claim
	// --offline does.
	Offline bool `json:"-"`
}

// ReadyResult is the ready work in order, what was left out and why, and
// what --claim took.
type ReadyResult struct {
	Ready []work.Item `json:"ready"`
	// More is how many ready items the limit left out.
	More   int         `json:"more,omitempty"`
	Counts work.Counts `json:"counts"`
	// Sources are the files read, relative to the top of the worktree.
	Sources  []string  `json:"sources"`
	Problems []Problem `json:"problems"`
	// Claimed is the assignment --claim made; Lost are the items it tried
	// first that another droid got to before it.
	Claimed *AssignResult `json:"claimed,omitempty"`
	Lost    []LostClaim   `json:"lost,omitempty"`
	me      string
	refusal *assignments.AlreadyAssignedError
}

// LostClaim is an item ready --claim tried and lost, and who has it.
type LostClaim struct {
	ID    string `json:"id"`
	Droid string `json:"droid"`
}

// maxClaimTries bounds how many items one ready --claim tries before it
// gives up: each try is a round trip to the remote.
const maxClaimTries = 5

// Ready lists the work that is ready: the beads issues of .beads/issues.jsonl
// (or the legacy beads.jsonl) and the items of st streams that are open
// (beads status open, st status pending), wait on nothing open, have no
// active assignment (nor a beads assignee), and are named by no active
// reservation (reserve --issue) of another droid. With Claim it claims the
// first, as Claim does.
var Ready = UseCase[ReadyRequest, *ReadyResult]{Name: "ready", run: runReady}

func runReady(e *Env, r ReadyRequest) (*ReadyResult, error) {
	if err := checkLimit(r.Limit); err != nil {
		return nil, err
	}
	me, err := e.RequireIdentity() // "" when none is set
	if r.Claim && err != nil {
		return nil, err
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	pool, res, err := e.readWork(s, r.Streams)
	if err != nil {
		return nil, err
	}
	res.me = me
	limit := r.Limit
	if r.Claim {
		limit = 0 // --claim may have to go past the limit; the list is cut after
	}
	taken, problems, err := takenWork(s, me)
	if err != nil {
		return nil, err
	}
	res.Problems = append(res.Problems, Problems(problems)...)
	res.Ready, res.More, res.Counts = pool.Ready(taken, limit)
	if r.Claim {
		err = e.claimFirst(s, r, pool, res)
		if r.Limit > 0 && len(res.Ready) > r.Limit {
			res.Ready, res.More = res.Ready[:r.Limit], len(res.Ready)-r.Limit
		}
	}
	return res, err
}

// claimFirst claims the first ready item; when another clone's claim got
// there first, it ranks again (the round brought that claim in, and the
// lost item counts as assigned in any case) and tries the next, up to
// maxClaimTries.
func (e *Env) claimFirst(s *store.Store, r ReadyRequest, pool *work.Pool, res *ReadyResult) error {
	for {
		if len(res.Ready) == 0 {
			if res.refusal != nil {
				return &claimLostError{lost: res.refusal}
			}
			return failed(wording.Errorf("nothing is ready to claim (%s); see %s", res.Counts.Summary(), wording.Run("ready")))
		}
		first := res.Ready[0]
		if err := records.ValidateNewIssueID(first.ID); err != nil || pool.Shared(first.ID) {
			// An id no assignment can name (a space, a control
			// character, a leading dash): say so and take the next, rather than stop
			// every droid's --claim at it. An id two files hold (their
			// problem says so) would take both.
			if err != nil {
				res.Problems = append(res.Problems, Problem{File: first.File, Line: first.Line, Msg: "not claimable: " + err.Error() + "; passed by"})
			}
			res.Ready = res.Ready[1:]
			res.Counts.Ready--
			continue
		}
		out, err := e.assign(AssignRequest{Issue: first.ID, Droid: res.me, Reason: r.Reason, Offline: r.Offline,
			Listed: first.Source == work.SourceST}, res.me, res.me)
		lost, ok := errors.AsType[*assignments.AlreadyAssignedError](err)
		if !ok {
			if err != nil {
				return err
			}
			res.Claimed = out
			res.Ready = res.Ready[1:]
			res.Counts.Ready--
			res.Counts.Assigned++
			return nil
		}
		res.refusal = lost
		res.Lost = append(res.Lost, LostClaim{ID: first.ID, Droid: lost.Active.Droid})
		if len(res.Lost) >= maxClaimTries {
			return &claimLostError{lost: lost, tries: maxClaimTries}
		}
		taken, _, err := takenWork(s, res.me)
		if err != nil {
			return err
		}
		for _, l := range res.Lost {
			taken.Assigned[l.ID] = cmp.Or(taken.Assigned[l.ID], l.Droid)
		}
		res.Ready, res.More, res.Counts = pool.Ready(taken, 0)
	}
}

// takenWork is what the stores say is taken: active assignments, and the
// issues named by active reservations of droids other than me.
func takenWork(s *store.Store, me string) (work.Taken, []jsonl.Problem, error) {
	taken := work.Taken{Assigned: map[string]string{}, Reserved: map[string]string{}}
	active, problems, err := (&assignments.Store{S: s}).List(assignments.Filter{})
	if err != nil {
		return taken, nil, err
	}
	for _, a := range active {
		taken.Assigned[a.IssueID] = a.Droid
	}
	held, more, err := (&reservations.Store{S: s}).IssueHolders(me, s.Now())
	if err != nil {
		return taken, nil, err
	}
	taken.Reserved = held
	return taken, append(problems, more...), nil
}

// readWork reads the beads issue file and the st streams into a pool of
// open work, and starts a result naming what was read and the lines that
// could not be. The pool keeps slices of the issue file's bytes (read, not
// mapped: see addBeads), so there is nothing to release.
func (e *Env) readWork(s *store.Store, streams []string) (*work.Pool, *ReadyResult, error) {
	res := &ReadyResult{Sources: []string{}, Problems: []Problem{}}
	pool := &work.Pool{}
	top := e.Dir
	if s.WS.Repo != nil && s.WS.Repo.TopLevel != "" {
		top = s.WS.Repo.TopLevel
	}
	for _, name := range assignments.IssueFiles {
		path := s.WS.BeadsPath(name)
		if path == "" {
			break
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		rel := relTo(top, path)
		if err := addBeads(pool, path, rel); err != nil {
			return nil, nil, fmt.Errorf("read the beads issues: %w", err)
		}
		res.Sources = append(res.Sources, rel)
		break
	}
	files, skipped, err := e.streamFiles(s, top, streams)
	if err != nil {
		return nil, nil, err
	}
	res.Problems = append(res.Problems, skipped...)
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("read the st stream: %w", err)
		}
		rel := relTo(top, path)
		res.Sources = append(res.Sources, rel)
		items, problems := work.StreamItems(rel, data)
		pool.AddItems(items)
		pool.Problems = append(pool.Problems, problems...)
	}
	pool.MarkShared()
	res.Problems = append(res.Problems, Problems(pool.Problems)...)
	return pool, res, nil
}

// streamFiles are the st streams to read: those named, then the files the
// [[format]] rules of .beads/queen.toml make "st" (streamMatches); each
// file once, however many
// links lead to it. A file a rule matches is read only when it is inside
// the worktree, symbolic links followed: queen.toml and the links come
// with the repository, from any teammate, and must not make ready read
// what lies outside it; those left out are returned as problems.
func (e *Env) streamFiles(s *store.Store, top string, named []string) ([]string, []Problem, error) {
	var files []string
	var skipped []Problem
	seen := map[string]bool{}
	addFile := func(p, real string) {
		if !seen[real] {
			seen[real] = true
			files = append(files, p)
		}
	}
	for _, n := range named {
		if n == "" {
			return nil, nil, usagef("ready", "%s is empty; name an st stream file", wording.Param("streams"))
		}
		p := e.requestPath(top, n) // as the sources name it
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			return nil, nil, usagef("ready", "%s %s: not a file here; name an st stream file", wording.Param("streams"), n)
		}
		addFile(p, links.Resolve(p))
	}
	cfgPath := s.WS.BeadsPath(schema.ConfigFile)
	if cfgPath == "" {
		return files, skipped, nil
	}
	data, err := schema.ReadConfigFile(cfgPath)
	if errors.Is(err, fs.ErrNotExist) {
		return files, skipped, nil
	}
	if err != nil {
		return nil, nil, err
	}
	cfg, err := schema.ParseConfig(data)
	if err != nil {
		return nil, nil, configError(cfgPath, err)
	}
	realTop := links.Resolve(top)
	matches, err := streamMatches(s, cfg, top)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", cfgPath, err)
	}
	for _, m := range matches {
		if fi, err := os.Stat(m); err != nil || !fi.Mode().IsRegular() || !inside(top, m) {
			continue
		}
		real, err := filepath.EvalSymlinks(m)
		if err != nil || !inside(realTop, real) {
			skipped = append(skipped, Problem{File: relTo(top, m), Msg: "not read: a symbolic link leads outside the worktree " +
				"(a stream of queen.toml is read only inside it; to read it anyway, name it as one of the streams to read)"})
			continue
		}
		addFile(m, real)
	}
	return files, skipped, nil
}

// streamMatches are the files of the worktree whose format the rules of
// queen.toml make "st", as validate and the merge driver decide it: the
// first rule that matches a path decides (format = "none" keeps a file
// out), a rule's path without a leading / matches at any depth, and **
// spans directories. The files are those git knows or would add (tracked,
// and untracked but not ignored). Outside a repository, each st rule's
// path is a glob from top.
func streamMatches(s *store.Store, cfg *schema.Config, top string) ([]string, error) {
	if !slices.ContainsFunc(cfg.Formats, func(r schema.Rule) bool { return r.Format == "st" }) {
		return nil, nil
	}
	reg, err := cfg.Registry()
	if err != nil {
		return nil, err
	}
	var matches []string
	if repo := s.WS.Repo; repo != nil && repo.TopLevel != "" {
		files, err := repo.Files()
		if err != nil {
			return nil, err
		}
		// A rule's last segment must match a file's name (unless it is
		// **): a cheap test that passes over most files of a large
		// worktree before the whole pattern is tried.
		last := make([]string, len(cfg.Formats))
		for i, rule := range cfg.Formats {
			segs := strings.Split(strings.Trim(rule.Path, "/"), "/")
			last[i] = segs[len(segs)-1]
		}
		mayMatch := func(name string) bool {
			return slices.ContainsFunc(last, func(l string) bool { ok, err := path.Match(l, name); return l == "**" || ok && err == nil })
		}
		for _, f := range files {
			// The configured rules come before the defaults, and no
			// default rule says st: a file no configured rule can match
			// is no stream.
			if !mayMatch(path.Base(f)) {
				continue
			}
			if rule, ok := reg.RuleFor(f); ok && rule.Format == "st" {
				matches = append(matches, filepath.Join(repo.TopLevel, filepath.FromSlash(f)))
			}
		}
		return matches, nil
	}
	for _, rule := range cfg.Formats {
		if rule.Format != "st" {
			continue
		}
		// Within top: its path may hold glob characters.
		found, err := fs.Glob(os.DirFS(top), path.Clean(strings.TrimPrefix(rule.Path, "/")))
		if err != nil { // a pattern Glob cannot read matches nothing here
			continue
		}
		for _, f := range found {
			matches = append(matches, filepath.Join(top, filepath.FromSlash(f)))
		}
	}
	return matches, nil
}

// inside says whether path is top or below it.
func inside(top, path string) bool {
	_, ok := relativeTo(top, path)
	return ok
}

// relTo names path from top with slashes, or as it is when outside.
func relTo(top, path string) string {
	if rel, ok := relativeTo(top, path); ok {
		return rel
	}
	return path
}
