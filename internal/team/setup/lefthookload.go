package setup

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// lefthookParse is a lefthook configuration file's settings, read by the
// parser lefthook 2 reads its extension with (through koanf), so that
// git-queen sees what lefthook sees: YAML with go.yaml.in/yaml/v3, which
// applies anchors, aliases and << merge keys, reads the first document
// only, and refuses a key twice in one mapping and anything that is not
// YAML (a key that is no string, 1:, koanf then makes one: stringKeys);
// TOML with go-toml v2; JSON with encoding/json (a key twice: the
// last counts), and JSONC so once plainJSON has taken its comments off.
// The error is the parser's, as lefthook says it; the settings are what
// it read all the same (YAML's, of a key twice); or, where the parser
// takes it, a *lefthookEither, for a setting spelt two ways of which
// lefthook reads either at random (lefthookSpelt, which notes in spelt,
// where it is not nil, how the file spells each setting). A file larger than
// maxLefthookConfig, or YAML that yaml.v3 would take long to decode
// (yamlDecodeCost), it does not parse: the error is a *lefthookUnjudged,
// so that doctor answers at once.
func lefthookParse(file string, text []byte, spelt lefthookSpellings) (map[string]any, error) {
	var tree map[string]any
	var err error
	if len(text) > maxLefthookConfig {
		return nil, lefthookTooLarge(file)
	}
	switch filepath.Ext(file) {
	case ".toml":
		err = toml.Unmarshal(text, &tree)
	case ".json":
		err = json.Unmarshal(text, &tree)
	case ".jsonc":
		err = json.Unmarshal(plainJSON(text), &tree)
	default:
		var doc yaml.Node
		if err = yaml.Unmarshal(text, &doc); err != nil || doc.Kind == 0 {
			return nil, err
		}
		if cost := yamlDecodeCost(&doc, map[*yaml.Node]float64{}); cost > maxYAMLDecodeCost {
			return nil, &lefthookUnjudged{file, "its YAML takes long to load (a mapping of thousands of keys, or aliases that repeat much)"}
		}
		err = doc.Decode(&tree)
		if typeErr := (*yaml.TypeError)(nil); errors.As(err, &typeErr) {
			err = errors.New(strings.Join(typeErr.Errors, "; ")) // line 5: mapping key "q" already defined at line 3
		}
		for key, value := range tree {
			tree[key] = stringKeys(value)
		}
	}
	if either := lefthookSpelt(tree, spelt); err == nil && len(either) > 0 {
		err = &lefthookEither{file, either}
	}
	return tree, err
}

// lefthookEither is a lefthook configuration that spells a setting of a
// hook two ways in one mapping, of which lefthook reads one or the other
// at random each time it runs (lefthookSpelt): for each such hook, the
// keys of the first.
type lefthookEither struct {
	file  string
	hooks map[string]string
}

func (e *lefthookEither) Error() string {
	return e.file + " spells a setting two ways in one mapping, of which lefthook reads either at random"
}

// stringKeys is a YAML setting with each mapping in it keyed by strings:
// yaml.v3 gives a mapping with a key that is no string (a command named
// 1: or true:) as a map[any]any, which koanf, and so lefthook, turns
// into a map[string]any, each key as fmt prints it ("1", "true").
func stringKeys(setting any) any {
	switch setting := setting.(type) {
	case map[any]any:
		keyed := make(map[string]any, len(setting))
		for key, value := range setting {
			keyed[fmt.Sprint(key)] = stringKeys(value)
		}
		return keyed
	case map[string]any:
		for key, value := range setting {
			setting[key] = stringKeys(value)
		}
	case []any:
		for i, value := range setting {
			setting[i] = stringKeys(value)
		}
	}
	return setting
}

// maxLefthookConfig is the most of a lefthook configuration doctor reads,
// far more than any has (a few kilobytes): the parsers take time and
// memory by the size, and doctor answers at once.
const maxLefthookConfig = 256 << 10

// maxYAMLDecodeCost bounds yamlDecodeCost, to about a tenth of a second
// of yaml.v3's decoding: a configuration has a few hundred nodes.
const maxYAMLDecodeCost = 30_000

// yamlDecodeCost is about the work of yaml.v3 decoding n, in nodes: one
// for each node it decodes, the node an alias names each time again;
// and since it compares each key of a mapping with each other (a key
// twice is an error), which for a mapping of 100,000 keys takes it
// minutes (lefthook too), the square of each mapping's keys, at about
// 500 comparisons a node.
func yamlDecodeCost(n *yaml.Node, memo map[*yaml.Node]float64) float64 {
	if cost, ok := memo[n]; ok || n == nil {
		return cost // 0 for an alias within its own anchor, which yaml.v3 refuses
	}
	memo[n] = 0
	cost := 1.0
	if n.Kind == yaml.MappingNode {
		cost += float64(len(n.Content)/2) * float64(len(n.Content)/2) / 500
	}
	if n.Kind == yaml.AliasNode {
		cost += yamlDecodeCost(n.Alias, memo)
	}
	for _, child := range n.Content {
		cost += yamlDecodeCost(child, memo)
	}
	memo[n] = cost
	return cost
}

// lefthookUnjudged is a lefthook configuration doctor does not read, and
// why: it cannot tell what lefthook does with it.
type lefthookUnjudged struct{ file, why string }

func (e *lefthookUnjudged) Error() string {
	return "doctor does not read " + e.file + ": " + e.why
}

// lefthookCannotTell says, of unjudged (a *lefthookUnjudged), that doctor
// cannot tell whether the hook h (lefthook's, husky's) runs git-queen's
// check.
func lefthookCannotTell(unjudged error, h *Hook) string {
	return unjudged.Error() + ", so it cannot tell whether " + strings.Replace(ownerNames[h.Owner], " hook", " "+h.Name+" hook", 1) +
		" runs git-queen's check"
}

// managerUnread says, for lefthook's or husky's hook h where no file it
// runs that doctor read runs git-queen's check, that doctor did not read
// one larger than maxLefthookConfig, so cannot tell whether it does; ""
// when it read each.
func managerUnread(h *Hook) string {
	if h.Owner != OwnerLefthook && h.Owner != OwnerHusky || h.RunsQueen || h.tooLarge == "" {
		return ""
	}
	return lefthookCannotTell(lefthookTooLarge(h.tooLarge), h)
}

// lefthookTooLarge says that doctor does not read file, a lefthook
// configuration (or husky's script) larger than maxLefthookConfig.
func lefthookTooLarge(file string) error {
	return &lefthookUnjudged{file, fmt.Sprintf("it is larger than %d KiB", maxLefthookConfig>>10)}
}

// lefthookRead is lefthookParse of the file at top (relative to it, or
// absolute), noting its spellings in spelt; readErr when it cannot be
// read. One larger than maxLefthookConfig it does not parse (parseErr a
// *lefthookUnjudged).
func lefthookRead(top, file string, spelt lefthookSpellings) lefthookLoaded {
	text, err := readRepoFile(filepath.Join(top, file))
	if tooLarge(err) {
		return lefthookLoaded{parseErr: lefthookTooLarge(file)}
	}
	if err != nil {
		return lefthookLoaded{readErr: err}
	}
	tree, err := lefthookParse(file, text, spelt)
	return lefthookLoaded{tree: tree, parseErr: err}
}

// lefthookMap is a setting that is a mapping (YAML), table (TOML) or
// object (JSON); nil for any other.
func lefthookMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// lefthookRunsQueen says whether a setting, or a string in it at any
// depth (in a mapping or a list), runs git-queen's check for the hook
// name.
func lefthookRunsQueen(setting any, name string) bool {
	switch setting := setting.(type) {
	case string:
		return callsQueen([]byte(setting), name)
	case map[string]any:
		for _, value := range setting {
			if lefthookRunsQueen(value, name) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(setting, func(value any) bool { return lefthookRunsQueen(value, name) })
	}
	return false
}

// lefthookUnloadable says, for lefthook's hook h, which file lefthook
// reads (in the environment getenv reads) its parser refuses, and why, as
// lefthook says it: lefthook then refuses its configuration ("couldn't
// load config"), so the hook fails every time and git-queen's check does
// not run. "" when none is refused.
func (r *Repo) lefthookUnloadable(h *Hook, getenv func(string) string) string {
	if h.Owner != OwnerLefthook {
		return ""
	}
	files, _, refused := r.lefthookFiles(getenv)
	if refused != "" {
		return "lefthook refuses the extends: of its configuration (" + refused + "), so its " + h.Name +
			" hook fails every time without running git-queen's check: correct it"
	}
	for _, file := range files {
		err := r.lefthookTree(file).parseErr
		if either := (*lefthookEither)(nil); errors.As(err, &either) {
			if keys := either.hooks[h.Name]; keys != "" {
				return fmt.Sprintf("%s spells a setting of %s two ways in one mapping (%s), and lefthook reads one or the other at random each time it runs, "+
					"so doctor cannot tell whether its %s hook runs git-queen's check: keep one of them", file, h.Name, keys, h.Name)
			}
			continue
		}
		if unjudged := (*lefthookUnjudged)(nil); errors.As(err, &unjudged) {
			return lefthookCannotTell(err, h)
		}
		if err != nil {
			fix := "correct it"
			if strings.Contains(err.Error(), "already") {
				fix = "take out one of the two"
			}
			return fmt.Sprintf("lefthook cannot load %s (%v), so its %s hook fails every time without running git-queen's check: %s",
				file, err, h.Name, fix)
		}
	}
	return ""
}
