package setup

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The settings lefthook 2 decodes of a hook, a command, a job and a job's
// group, each spelt as its decoder (mapstructure, under koanf's tag)
// looks for it first: the field's koanf tag where it has one
// (exclude_tags), else the field's Go name (Skip). A job's name is left
// as it is spelt: lefthook merges jobs by their name: key alone
// (lefthookJobName).
var (
	lefthookHookKeys = []string{"Parallel", "Piped", "Follow", "fail_on_changes", "fail_on_changes_diff", "Files", "exclude_tags",
		"exclude", "Skip", "Only", "Commands", "Scripts", "Jobs", "Setup"}
	lefthookCommandKeys = []string{"Run", "Files", "fail_text", "Timeout", "Glob", "Exclude", "Tags", "file_types", "Env", "Root",
		"Priority", "Interactive", "use_stdin", "stage_fixed", "Skip", "Only"}
	lefthookJobKeys = []string{"Run", "Script", "Runner", "Args", "Root", "Files", "fail_text", "Timeout", "Glob", "Exclude",
		"Tags", "file_types", "Env", "Interactive", "use_stdin", "stage_fixed", "Skip", "Only", "Group"}
	lefthookGroupKeys = []string{"Root", "Parallel", "Piped", "Jobs"}
)

// lefthookSpelt is a file's settings with the key lefthook reads for each
// setting of a hook, command, job or group spelt as doctor reads it, in
// lower case (Skip: as skip:), and the others of that setting taken out.
// lefthook reads the key spelt as its decoder looks first (Skip:, not
// skip:; exclude_tags:), else the one key that is the setting's name in
// another case (SKIP:); of two such (skip: and SKIP:), the first its
// walk over a Go map meets: one or the other, at random, each time it
// runs. either names, for each hook with such a mapping, the keys of the
// first (of them doctor reads skip:, or else the first in order, and
// keeps the others, where git-queen's run: may be). Of two files that
// spell a setting differently, lefthook merges both keys into one
// mapping and reads them as above (lefthookShadow): so where spelt is
// not nil, it gets how the file spells each setting.
func lefthookSpelt(tree map[string]any, spelt lefthookSpellings) (map[string]any, map[string]string) {
	either := map[string]string{}
	for name, hook := range tree {
		hook := lefthookMap(hook)
		random := spell(hook, lefthookHookKeys, spelt, lefthookSpeltAt(name, "hook", nil))
		for _, key := range slices.Sorted(maps.Keys(lefthookMap(hook["commands"]))) {
			random = cmp.Or(random, spell(lefthookMap(lefthookMap(hook["commands"])[key]), lefthookCommandKeys, spelt,
				lefthookSpeltAt(name, "command", []any{key})))
		}
		if random = cmp.Or(random, spellJobs(hook["jobs"], spelt, name, nil)); random != "" {
			either[name] = random
		}
	}
	return tree, either
}

// lefthookSpellings is how a file spells the settings lefthookSpelt
// notes, under lefthookSpeltAt of where each is and its name in lower
// case.
type lefthookSpellings map[string]lefthookSpelling

// lefthookSpelling is how a file spells a setting: its keys ("SKIP:,
// skip:"), whether one is spelt as the setting's field (Skip:), and the
// mapping that holds it.
type lefthookSpelling struct {
	keys  string
	exact bool
	in    map[string]any
}

// lefthookSpeltAt is where lefthookSpelt notes how a file spells the
// settings of hook's hook ("hook"), command ("command", names its key)
// or job or group ("job", "group", names the names of the jobs down to
// it, those of the groups around it first); "" for a job or a group
// lefthook merges with none in another file (one without a name, or in
// a group without one).
func lefthookSpeltAt(hook, what string, names []any) string {
	if slices.ContainsFunc(names, func(name any) bool { _, isName := name.(string); return !isName }) {
		return ""
	}
	return fmt.Sprint(hook, "\x00", what, names, "\x00")
}

// spellJobs spells the keys of each job in a list, and of its group's,
// noting how (lefthookSpelt) where spelt is not nil, for the hook, in the
// groups of the jobs names names; it says which keys of the first mapping
// with two spellings lefthook reads at random (spell).
func spellJobs(list any, spelt lefthookSpellings, hook string, names []any) (random string) {
	jobs, _ := list.([]any)
	for i, job := range jobs {
		job, jobKeys, groupKeys := lefthookMap(job), lefthookSpellings{}, lefthookSpellings{}
		random = cmp.Or(random, spell(job, lefthookJobKeys, jobKeys, ""))
		group := lefthookMap(job["group"])
		random = cmp.Or(random, spell(group, lefthookGroupKeys, groupKeys, ""))
		at := append(slices.Clip(names), any(i))
		if name, isName := job["name"].(string); isName {
			at[len(at)-1] = name
		}
		for what, keys := range map[string]lefthookSpellings{"job": jobKeys, "group": groupKeys} {
			if where := lefthookSpeltAt(hook, what, at); where != "" && spelt != nil {
				for field, spelling := range keys {
					spelt[where+field] = spelling
				}
			}
		}
		random = cmp.Or(random, spellJobs(group["jobs"], spelt, hook, at))
	}
	return random
}

// spell renames, in settings, the key lefthook reads for each of fields
// (see lefthookSpelt) to the field's name in lower case, and takes out
// the others that match it; where lefthook reads one of two or more at
// random, it says which ("SKIP:, skip:"), and keeps them. It notes the
// keys of each field it finds in spelt (where it is not nil), under at
// and the field's name in lower case (where at is not "").
func spell(settings map[string]any, fields []string, spelt lefthookSpellings, at string) (random string) {
	for _, field := range fields {
		var keys []string
		for key := range settings {
			if strings.EqualFold(key, field) {
				keys = append(keys, key)
			}
		}
		slices.Sort(keys)
		read, lower := field, strings.ToLower(field)
		if len(keys) > 0 && spelt != nil {
			spelt[at+lower] = lefthookSpelling{strings.Join(keys, ":, ") + ":", slices.Contains(keys, field), settings}
		}
		switch {
		case len(keys) == 0:
			continue
		case len(keys) == 1:
			read = keys[0]
		case !slices.Contains(keys, field):
			random = cmp.Or(random, strings.Join(keys, ":, ")+":")
			if !slices.Contains(keys, lower) {
				settings[lower] = settings[keys[0]]
			}
			continue
		}
		value := settings[read]
		for _, key := range keys {
			delete(settings, key)
		}
		settings[lower] = value
	}
	return random
}
