package schema

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/st"
)

// Rule maps the paths a pattern matches to a format. A pattern is matched
// against the repository-relative path with forward slashes; "*" and "?"
// stay within one path segment, "**" matches any number of segments. A
// pattern without a leading "/" matches at any depth (".work/events.jsonl"
// also matches "project-a/.work/events.jsonl", as VerMAS nests factories);
// a leading "/" anchors it at the top of the repository.
type Rule struct {
	Path   string `toml:"path" json:"path"`
	Format string `toml:"format" json:"format"`
}

// NoFormat as a rule's format makes matching files unknown (skipped).
const NoFormat = "none"

// Registry decides the format of a file: configured rules first, then the
// defaults of the seed layouts, then the content of the first line.
type Registry struct {
	rules []Rule
	// patterns are the rules' paths split into segments once, since the
	// hook asks about every staged path.
	patterns []segPattern
}

// segPattern is a rule's path split at slashes.
type segPattern struct {
	anchored bool
	segs     []string
}

func splitPattern(pattern string) segPattern {
	return segPattern{strings.HasPrefix(pattern, "/"), strings.Split(strings.Trim(pattern, "/"), "/")}
}

func newRegistry(rules []Rule) *Registry {
	r := &Registry{rules: rules, patterns: make([]segPattern, len(rules))}
	for i, rule := range rules {
		r.patterns[i] = splitPattern(rule.Path)
	}
	return r
}

// matches reports whether the pattern matches a path already cleaned and
// split (see Match).
func (sp segPattern) matches(segs []string) bool {
	if sp.anchored {
		return matchSegs(sp.segs, segs)
	}
	for i := range segs {
		if matchSegs(sp.segs, segs[i:]) {
			return true
		}
	}
	return false
}

// ruleFor returns the first rule matching the cleaned path p.
func (r *Registry) ruleFor(p string) (Rule, bool) {
	segs := strings.Split(p, "/")
	for i, sp := range r.patterns {
		if sp.matches(segs) {
			return r.rules[i], true
		}
	}
	return Rule{}, false
}

// RuleFor is the rule that decides the format of the file at path p (the
// first that matches, as FormatFor and validate read them), for a caller
// that asks which files a format covers (ready's st streams).
func (r *Registry) RuleFor(p string) (Rule, bool) { return r.ruleFor(cleanPath(p)) }

// DefaultRules are the seed layouts: the stores' logs in .beads/ (with
// their seed archives), then the other seeds' files.
var DefaultRules = append(storeRules(), []Rule{
	{".beads/issues.jsonl", "beads-issue"},
	{".beads/beads.jsonl", "beads-issue"},
	{"state/pipeline/*.json", "jkz-pipeline"},
	{".openclaw-autopilot/events/events.jsonl", "autopilot-event"},
	{".openclaw-autopilot/events/checkpoints.jsonl", "autopilot-checkpoint"},
	{".work/events.jsonl", "vermas-event"},
	{".work/work_orders.jsonl", "vermas-work-order"},
	{".work/messages.jsonl", "vermas-message"},
	{".work/routes.jsonl", "vermas-route"},
	{".work/.assignment-*", "vermas-assignment"},
	{".work/templates/*.toml", "vermas-template"},
	{".work/processes/*.json", "vermas-process"},
	{".work/feed.jsonl", "jsonl"},
	{".work/evidence/*.json", "json"},
}...)

// storeRules are the rules of records.Kinds: each log, then its seed
// archive, in .beads/.
func storeRules() []Rule {
	var rules []Rule
	for _, k := range records.Kinds {
		rules = append(rules, Rule{".beads/" + k.File, k.Format})
		if k.SeedArchive != "" {
			rules = append(rules, Rule{".beads/" + k.SeedArchive, k.Format})
		}
	}
	return rules
}

// seedRoots are directories whose every file is worth a mention: a file
// there of no known format is listed as skipped rather than ignored.
var seedRoots = []string{".work/**"}

// defaultRegistry is built once: DefaultRules do not change.
var defaultRegistry = sync.OnceValue(func() *Registry { return newRegistry(DefaultRules) })

// DefaultRegistry knows the seed layouts and nothing configured.
func DefaultRegistry() *Registry { return defaultRegistry() }

// NewRegistry is the default registry with rules in front of the defaults,
// so a configured rule wins. It fails on a rule that names no format.
func NewRegistry(rules []Rule) (*Registry, error) {
	for i, r := range rules {
		if r.Path == "" {
			return nil, fmt.Errorf("format rule %d has no path", i+1)
		}
		if _, ok := Lookup(r.Format); !ok && r.Format != NoFormat {
			return nil, fmt.Errorf("format rule %d (%s) names format %q, which does not exist; use a format from 'git queen schema list', or %q",
				i+1, r.Path, r.Format, NoFormat)
		}
	}
	return newRegistry(slices.Concat(rules, DefaultRules)), nil
}

// FormatFor returns the format of the file at path whose first non-blank
// line is firstLine (nil when not read). Files no rule names are recognised
// by content when they end in .jsonl: an st v3 record makes an st stream
// anywhere; in a .beads/ directory, a record whose id starts with qm-, qa-
// or qr- makes a QueenBee store (an archive or a renamed copy).
func (r *Registry) FormatFor(p string, firstLine []byte) (*Format, bool) {
	p = cleanPath(p)
	if rule, ok := r.ruleFor(p); ok {
		if rule.Format == NoFormat {
			return nil, false
		}
		return Lookup(rule.Format)
	}
	if !strings.HasSuffix(p, ".jsonl") || firstLine == nil {
		return nil, false
	}
	return sniff(firstLine, p == ".beads" || strings.HasPrefix(p, ".beads/") || strings.Contains(p, "/.beads/"))
}

// Candidate reports whether a file belongs to a seed layout or may be
// recognised by content, so that `validate` with no arguments looks at it
// (and lists it as skipped when it has no known format).
func (r *Registry) Candidate(p string) bool {
	p = cleanPath(p)
	if rule, ok := r.ruleFor(p); ok {
		return rule.Format != NoFormat
	}
	return strings.HasSuffix(p, ".jsonl") || slices.ContainsFunc(seedRoots, func(root string) bool { return Match(root, p) })
}

func sniff(line []byte, inBeads bool) (*Format, bool) {
	if st.LooksLikeStream(line) {
		return Lookup("st")
	}
	if !inBeads {
		return nil, false
	}
	vals := make([][]byte, 1)
	if jsonline.ObjectFields(line, []string{"id"}, vals) != nil {
		return nil, false
	}
	id, _ := jsonline.String(vals[0])
	for _, k := range records.Kinds {
		if strings.HasPrefix(id, k.IDPrefix()) {
			return Lookup(k.Format)
		}
	}
	return nil, false
}

func cleanPath(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}

// Match reports whether a registry pattern matches a repository-relative
// path (see Rule for the syntax).
func Match(pattern, p string) bool {
	return splitPattern(pattern).matches(strings.Split(cleanPath(p), "/"))
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := len(segs); i >= 0; i-- {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// ConfigFile is where a repository configures git-queen, relative to the
// store directory: .beads/queen.toml, committed, so every droid and every
// worktree reads the same rules.
const ConfigFile = "queen.toml"

// Config is the part of .beads/queen.toml that validation reads:
//
//	[validate]
//	limit = 100            # problems listed per file (default 50)
//
//	[[format]]             # tried in order, before the defaults
//	path = "plans/*.jsonl"
//	format = "st"
//
//	[[format]]
//	path = "/vendor/**"
//	format = "none"        # never validate these
//
// Other tables are left to the commands that own them.
type Config struct {
	Validate struct {
		Limit int `toml:"limit"`
	} `toml:"validate"`
	Formats []Rule `toml:"format"`
}

// ParseConfig reads a queen.toml. An empty file is an empty configuration.
func ParseConfig(data []byte) (*Config, error) {
	var c Config
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		strict, ok := errors.AsType[*toml.StrictMissingError](err)
		if !ok {
			return nil, fmt.Errorf("%s: %w", ConfigFile, err)
		}
		// Other tables belong to other commands; a key this one does not
		// know inside its own tables is a typo worth stopping for.
		for _, e := range strict.Errors {
			if k := e.Key(); len(k) > 1 && (k[0] == "validate" || k[0] == "format") {
				row, _ := e.Position()
				return nil, fmt.Errorf("%s:%d: unknown key %s (validate takes limit; each [[format]] takes path and format)",
					ConfigFile, row, strings.Join(k, "."))
			}
		}
	}
	if c.Validate.Limit < 0 {
		return nil, fmt.Errorf("%s: validate.limit is %d; use a positive number", ConfigFile, c.Validate.Limit)
	}
	return &c, nil
}

// Registry builds the registry the configuration describes.
func (c *Config) Registry() (*Registry, error) {
	r, err := NewRegistry(c.Formats)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	return r, nil
}
