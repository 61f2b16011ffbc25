package app

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// ValidateRequest names the files to validate.
type ValidateRequest struct {
	Paths []string `json:"paths,omitempty" jsonschema:"files to validate; default: every file of a known format in the repository"`
	// Format validates every path as this format; Limit, when set, is
	// how many problems to list per file (0: all).
	Format string `json:"-"`
	Limit  *int   `json:"-"`
}

// ValidateReport is what validate found.
type ValidateReport struct {
	Valid    bool            `json:"valid"`
	Files    []schema.Result `json:"files"`
	Skipped  []string        `json:"skipped"`
	Problems int             `json:"problems"`
}

// Validate checks files of every seed format against their schemas and
// rules. Files that are not valid are a FailedError whose result lists
// the problems.
var Validate = UseCase[ValidateRequest, *ValidateReport]{Name: "validate", run: validate}

func validate(e *Env, r ValidateRequest) (*ValidateReport, error) {
	if r.Format != "" {
		if _, ok := schema.Lookup(r.Format); !ok {
			return nil, &UsageError{Command: "validate", Msg: fmt.Sprintf("no format named %q; 'git queen schema list' shows them", r.Format)}
		}
	}
	if r.Limit != nil && *r.Limit < 0 {
		return nil, usagef("validate", "%s must be 0 (all) or more", wording.Param("limit"))
	}
	repo, top, err := repoOrDir(e.Dir)
	if err != nil {
		return nil, err
	}
	reg, limit, err := e.LoadValidateConfig(top)
	if err != nil {
		return nil, err
	}
	if r.Limit != nil {
		limit = cmp.Or(*r.Limit, -1)
	}
	files, err := e.filesToValidate(r.Paths, repo, reg, top)
	if err != nil {
		return nil, err
	}
	rep := &ValidateReport{Valid: true, Files: []schema.Result{}, Skipped: []string{}}
	invalid := 0
	for _, f := range files {
		res, ok := validateOne(f, r.Format, limit, reg)
		if !ok {
			continue
		}
		if res.Skipped() {
			rep.Skipped = append(rep.Skipped, res.Path)
			continue
		}
		if !res.Valid() {
			rep.Valid = false
			invalid++
		}
		rep.Problems += len(res.Problems) + res.Omitted
		rep.Files = append(rep.Files, res)
	}
	if !rep.Valid {
		return rep, failed(fmt.Errorf("%d of %d files invalid, %d problems (see the result's files)", invalid, len(rep.Files), rep.Problems))
	}
	return rep, nil
}

// LoadValidateConfig reads .beads/queen.toml when there is one: the store
// directory git-queen would use, else .beads/ at the top of the repository.
func (e *Env) LoadValidateConfig(top string) (*schema.Registry, int, error) {
	path := filepath.Join(top, ".beads", schema.ConfigFile)
	if ws, err := e.Workspace(); err == nil && ws.BeadsDir != "" {
		path = ws.BeadsPath(schema.ConfigFile)
	}
	data, err := schema.ReadConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return schema.DefaultRegistry(), 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	cfg, err := schema.ParseConfig(data)
	if err == nil {
		var reg *schema.Registry
		if reg, err = cfg.Registry(); err == nil {
			return reg, cfg.Validate.Limit, nil
		}
	}
	return nil, 0, configError(path, err)
}

// configError is err of reading the queen.toml at path, as every command
// that reads it says it: the schema package names the file queen.toml;
// the message names the one read.
func configError(path string, err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, schema.ConfigFile); ok {
		msg = path + rest
	}
	return fmt.Errorf("%s\nfix the file (see 'git queen validate --help'), or move it away", msg)
}

// target is one file to validate: where it is, how the registry sees it
// (relative to the top, with slashes) and how to name it in messages.
type target struct {
	abs, rel string
	explicit bool
	// format is known for the live store's logs, which no path rule
	// matches (they live in git's directory).
	format string
}

// liveTargets lists the logs of the live store (this clone's, the received
// ones and the archives), when dir is one.
func liveTargets(dir string) []target {
	var out []target
	for _, sub := range []string{dir, filepath.Join(dir, store.ReceivedDir)} {
		entries, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if f := liveFormat(e.Name()); f != "" && !e.IsDir() {
				p := filepath.Join(sub, e.Name())
				out = append(out, target{abs: p, rel: p, format: f})
			}
		}
	}
	return out
}

func liveFormat(name string) string {
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return ""
	}
	kind, _ := records.KindOf(strings.TrimSuffix(base, "_archive") + ".jsonl") // an archive's name ends in _archive before .jsonl
	return kind.Format
}

// seedDirs are searched even when git ignores them: jkz's state/ is
// git-ignored by design, and a droid may want its pipeline files checked.
var seedDirs = []string{"state/pipeline", ".openclaw-autopilot/events", ".work", ".beads"}

func (e *Env) filesToValidate(paths []string, repo *gitrepo.Repo, reg *schema.Registry, top string) ([]target, error) {
	var out []target
	seen := map[string]bool{}
	add := func(t target) {
		if !seen[t.abs] {
			seen[t.abs] = true
			out = append(out, t)
		}
	}
	mk := func(abs string, explicit bool) target {
		return target{abs: abs, rel: filepath.ToSlash(relTo(top, abs)), explicit: explicit}
	}
	walk := func(dir string) error {
		return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				if t := mk(p, false); reg.Candidate(t.rel) {
					add(t)
				}
			}
			return nil
		})
	}
	if len(paths) == 0 {
		if repo == nil || repo.TopLevel == "" {
			return nil, &UsageError{Command: "validate", Msg: "not inside a git repository: name the files to validate"}
		}
		files, err := repo.Files()
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if t := mk(filepath.Join(top, filepath.FromSlash(f)), false); reg.Candidate(t.rel) {
				add(t)
			}
		}
		for _, d := range seedDirs {
			if err := walk(filepath.Join(top, filepath.FromSlash(d))); err != nil {
				return nil, err
			}
		}
		slices.SortFunc(out, func(a, b target) int { return strings.Compare(a.rel, b.rel) })
		for _, t := range liveTargets(workspace.LiveDir(repo)) {
			add(t)
		}
		return out, nil
	}
	live := ""
	if repo != nil {
		live = workspace.LiveDir(repo)
	}
	for _, p := range paths {
		abs := e.requestPath(top, p) // as the results name it
		if live != "" && (abs == live || strings.HasPrefix(abs, live+string(filepath.Separator))) {
			if info, err := os.Stat(abs); err == nil && info.IsDir() {
				for _, t := range liveTargets(abs) {
					add(t)
				}
				continue
			}
			if f := liveFormat(filepath.Base(abs)); f != "" {
				add(target{abs: abs, rel: abs, explicit: true, format: f})
				continue
			}
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			add(mk(abs, true)) // a missing one is reported as "no such file"
		} else if err := walk(abs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// validateOne validates one file; ok is false for a file git lists that is
// gone from the work tree (deleted, not yet committed), which is not news.
// Only a regular file is read: a symbolic link committed in a file's
// place can lead to a device (/dev/zero, read until memory runs out) or a
// pipe (which never ends); it is a problem of its own.
func validateOne(t target, format string, limit int, reg *schema.Registry) (res schema.Result, ok bool) {
	data, err := regular.Read(t.abs, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !t.explicit {
			return schema.Result{}, false
		}
		msg := err.Error()
		var kind *regular.NotRegularError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			msg = "no such file"
		case errors.As(err, &kind):
			msg = "not a regular file but " + kind.Kind + "; validate reads only files"
		}
		return schema.Result{Path: t.rel, Format: "?", Problems: []schema.Problem{{Path: t.rel, Rule: "read", Message: msg}}}, true
	}
	format = cmp.Or(format, t.format)
	return schema.ValidateFile(t.rel, data, schema.Options{Format: format, Limit: limit, Registry: reg}), true
}
