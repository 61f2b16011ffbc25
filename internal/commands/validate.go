package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/schema"
	"github.com/git-queen/git-queen/internal/store"
	"github.com/git-queen/git-queen/internal/workspace"
)

type validateOptions struct {
	Env     *Env
	Globals globals
	Paths   []string
	Format  string
	// Limit is --limit when given: 0 lists every problem.
	Limit    int
	LimitSet bool
}

func validateCommand(env *Env) *cli.Command { return newValidateCmd(env, runValidate) }

// newValidateCmd builds `validate`; runF receives the options its flags
// fill (the seam newReserveCmd describes).
func newValidateCmd(env *Env, runF func(validateOptions) error) *cli.Command {
	o := validateOptions{Env: env}
	return &cli.Command{
		Name:      "validate",
		Usage:     "check files of every seed format (QueenBee, beads, st, jkz, autopilot, VerMAS)",
		ArgsUsage: "[PATH...]",
		Description: `Validates each file against the schema of its format and the rules beyond
it, and reports every problem (up to --limit per file) as
PATH:LINE: FIELD: WHAT IS WRONG. Exit status 1 when anything is invalid.

Without PATH it validates every file of a known format in the repository:
tracked and untracked files, the (often git-ignored) seed directories
state/pipeline/, .openclaw-autopilot/events/ and .work/, and the logs of the
live store in git's common directory. A directory PATH is searched the same
way. Files of no known format are skipped and listed.

The format of a file comes from its path (.beads/` + records.MessagesFile + `,
state/pipeline/<N>.json, .work/**, ...), from its first line (st v3
streams, QueenBee records) or from [[format]] rules in .beads/queen.toml;
'git queen schema list' shows them all.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Destination: &o.Format, Usage: "validate every PATH as format `NAME` (see git queen schema list)"},
			&cli.IntFlag{Name: "limit", Destination: &o.Limit, Usage: "list at most `N` problems per file, 0 for all (default 50, or validate.limit in .beads/queen.toml)"},
		},
		Action: func(c *cli.Context) error {
			o.Globals, o.Paths, o.LimitSet = readGlobals(c), c.Args().Slice(), c.IsSet("limit")
			return runF(o)
		},
	}
}

// validateReport is the --json output of validate.
type validateReport struct {
	Valid    bool            `json:"valid"`
	Files    []schema.Result `json:"files"`
	Skipped  []string        `json:"skipped"`
	Problems int             `json:"problems"`
}

func runValidate(o validateOptions) error {
	if o.Format != "" {
		if _, ok := schema.Lookup(o.Format); !ok {
			return &UsageError{Command: "validate", Msg: fmt.Sprintf("no format named %q; 'git queen schema list' shows them", o.Format)}
		}
	}
	if o.LimitSet && o.Limit < 0 {
		return &UsageError{Command: "validate", Msg: "--limit must be 0 (all) or more"}
	}
	repo, err := gitrepo.Discover(o.Env.Dir)
	if err != nil && !errors.Is(err, gitrepo.ErrNotRepository) {
		return err
	}
	top := o.Env.Dir
	if repo != nil && repo.TopLevel != "" {
		top = repo.TopLevel
	}
	reg, limit, err := loadValidateConfig(o.Env, o.Globals, top)
	if err != nil {
		return err
	}
	if o.LimitSet {
		limit = o.Limit
		if limit == 0 {
			limit = -1
		}
	}
	files, err := filesToValidate(o, repo, reg, top)
	if err != nil {
		return err
	}
	rep := validateReport{Valid: true, Files: []schema.Result{}, Skipped: []string{}}
	for _, f := range files {
		res, ok := validateOne(f, o.Format, limit, reg)
		if !ok {
			continue
		}
		if res.Skipped() {
			rep.Skipped = append(rep.Skipped, res.Path)
			continue
		}
		if !res.Valid() {
			rep.Valid = false
		}
		rep.Problems += len(res.Problems) + res.Omitted
		rep.Files = append(rep.Files, res)
	}
	if o.Globals.JSON {
		if err := printJSON(o.Env.Stdout, rep); err != nil {
			return err
		}
	} else {
		printValidateReport(o.Env, rep)
	}
	if !rep.Valid {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

// loadValidateConfig reads .beads/queen.toml when there is one: the store
// directory git-queen would use, else .beads/ at the top of the repository.
func loadValidateConfig(env *Env, g globals, top string) (*schema.Registry, int, error) {
	path := filepath.Join(top, ".beads", schema.ConfigFile)
	if ws, err := env.workspace(g); err == nil && ws.BeadsDir != "" {
		path = ws.BeadsPath(schema.ConfigFile)
	}
	data, err := os.ReadFile(path)
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
	// The schema package names the file queen.toml; name the one read.
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, schema.ConfigFile); ok {
		msg = path + rest
	}
	return nil, 0, fmt.Errorf("%s\nfix the file (see 'git queen validate --help'), or move it away", msg)
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

func filesToValidate(o validateOptions, repo *gitrepo.Repo, reg *schema.Registry, top string) ([]target, error) {
	var out []target
	seen := map[string]bool{}
	add := func(t target) {
		if !seen[t.abs] {
			seen[t.abs] = true
			out = append(out, t)
		}
	}
	mk := func(abs string, explicit bool) target {
		rel, err := filepath.Rel(top, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			rel = abs
		}
		return target{abs: abs, rel: filepath.ToSlash(rel), explicit: explicit}
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
	if len(o.Paths) == 0 {
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
	for _, p := range o.Paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(o.Env.Dir, p)
		}
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
		info, err := os.Stat(abs)
		switch {
		case err != nil:
			add(mk(abs, true)) // reported as "no such file"
		case info.IsDir():
			if err := walk(abs); err != nil {
				return nil, err
			}
		default:
			add(mk(abs, true))
		}
	}
	return out, nil
}

// validateOne validates one file; ok is false for a file git lists that is
// gone from the work tree (deleted, not yet committed), which is not news.
func validateOne(t target, format string, limit int, reg *schema.Registry) (res schema.Result, ok bool) {
	data, err := os.ReadFile(t.abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !t.explicit {
			return schema.Result{}, false
		}
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "no such file"
		}
		return schema.Result{Path: t.rel, Format: "?", Problems: []schema.Problem{{Path: t.rel, Rule: "read", Message: msg}}}, true
	}
	if format == "" {
		format = t.format
	}
	return schema.ValidateFile(t.rel, data, schema.Options{Format: format, Limit: limit, Registry: reg}), true
}

func printValidateReport(env *Env, rep validateReport) {
	w := env.Stdout
	invalid := 0
	for _, r := range rep.Files {
		for _, p := range r.Problems {
			fmt.Fprintln(w, p.String())
		}
		if r.Omitted > 0 {
			fmt.Fprintf(w, "%s: ... and %d more problems (git queen validate --limit 0 lists them all)\n", r.Path, r.Omitted)
		}
		if !r.Valid() {
			invalid++
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s: no known format (a [[format]] rule in .beads/queen.toml can name one)\n", s)
	}
	summary := fmt.Sprintf("%d %s valid", len(rep.Files), plural(len(rep.Files), "file", "files"))
	if invalid > 0 {
		summary = fmt.Sprintf("%d of %d %s invalid, %d %s", invalid, len(rep.Files), plural(len(rep.Files), "file", "files"),
			rep.Problems, plural(rep.Problems, "problem", "problems"))
	}
	if len(rep.Skipped) > 0 {
		summary += fmt.Sprintf("; %d skipped", len(rep.Skipped))
	}
	fmt.Fprintf(w, "validate: %s\n", summary)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
