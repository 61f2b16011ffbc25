package setup

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// The settings lefthook 2 decodes of a hook, a command, a job and a job's
// group, each spelt as its decoder (mapstructure, under koanf's tag)
// looks for it first: the field's koanf tag where it has one
// (exclude_tags), else the field's Go name (Skip).
var (
	lefthookHookKeys = []string{"Parallel", "Piped", "Follow", "fail_on_changes", "fail_on_changes_diff", "Files", "exclude_tags",
		"exclude", "Skip", "Only", "Commands", "Scripts", "Jobs", "Setup"}
	lefthookCommandKeys = []string{"Run", "Files", "fail_text", "Timeout", "Glob", "Exclude", "Tags", "file_types", "Env", "Root",
		"Priority", "Interactive", "use_stdin", "stage_fixed", "Skip", "Only"}
	lefthookJobKeys = []string{"Name", "Run", "Script", "Runner", "Args", "Root", "Files", "fail_text", "Timeout", "Glob", "Exclude",
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
// spell a setting differently, doctor takes the later file's; lefthook
// merges both keys into one mapping and reads them as above.
func lefthookSpelt(tree map[string]any) (spelt map[string]any, either map[string]string) {
	either = map[string]string{}
	for name, hook := range tree {
		hook := lefthookMap(hook)
		random := spell(hook, lefthookHookKeys)
		for _, key := range slices.Sorted(maps.Keys(lefthookMap(hook["commands"]))) {
			random = cmp.Or(random, spell(lefthookMap(lefthookMap(hook["commands"])[key]), lefthookCommandKeys))
		}
		if random = cmp.Or(random, spellJobs(hook["jobs"])); random != "" {
			either[name] = random
		}
	}
	return tree, either
}

// spellJobs spells the keys of each job in a list, and of its group's;
// it says which keys of the first mapping with two spellings lefthook
// reads at random (spell).
func spellJobs(list any) (random string) {
	jobs, _ := list.([]any)
	for _, job := range jobs {
		job := lefthookMap(job)
		random = cmp.Or(random, spell(job, lefthookJobKeys))
		group := lefthookMap(job["group"])
		random = cmp.Or(random, spell(group, lefthookGroupKeys), spellJobs(group["jobs"]))
	}
	return random
}

// spell renames, in settings, the key lefthook reads for each of fields
// (see lefthookSpelt) to the field's name in lower case, and takes out
// the others that match it; where lefthook reads one of two or more at
// random, it says which ("SKIP:, skip:"), and keeps them.
func spell(settings map[string]any, fields []string) (random string) {
	for _, field := range fields {
		var keys []string
		for key := range settings {
			if strings.EqualFold(key, field) {
				keys = append(keys, key)
			}
		}
		slices.Sort(keys)
		read, lower := field, strings.ToLower(field)
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
