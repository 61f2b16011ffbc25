package setup

import (
	"maps"
	"slices"
	"strings"
)

// The settings lefthook 2 decodes of a hook, a command, a job and a job's
// group (its config structs' field names): mapstructure matches each to
// a key of any case (Skip:, SKIP:) where none is spelt as it is.
var (
	lefthookHookKeys = []string{"parallel", "piped", "follow", "fail_on_changes", "fail_on_changes_diff", "files", "exclude_tags",
		"exclude", "skip", "only", "commands", "scripts", "jobs", "setup"}
	lefthookCommandKeys = []string{"run", "files", "fail_text", "timeout", "glob", "exclude", "tags", "file_types", "env", "root",
		"priority", "interactive", "use_stdin", "stage_fixed", "skip", "only"}
	lefthookJobKeys = []string{"name", "run", "script", "runner", "args", "root", "files", "fail_text", "timeout", "glob", "exclude",
		"tags", "file_types", "env", "interactive", "use_stdin", "stage_fixed", "skip", "only", "group"}
	lefthookGroupKeys = []string{"root", "parallel", "piped", "jobs"}
)

// lefthookSpelt is a file's settings with each key of a hook, command,
// job or group that names one of its settings in another case spelt as
// lefthook's field is (Skip: as skip:), where the mapping has no key spelt
// so already: lefthook reads it so. Of two spellings of one setting in
// one mapping doctor takes the one spelt as the field, in two files the
// later file's; lefthook 2.2.2 follows another rule (it takes Skip: over
// skip:, but skip: over SKIP:), which doctor does not.
func lefthookSpelt(tree map[string]any) map[string]any {
	for _, hook := range tree {
		hook := lefthookMap(hook)
		spell(hook, lefthookHookKeys)
		for _, command := range lefthookMap(hook["commands"]) {
			spell(lefthookMap(command), lefthookCommandKeys)
		}
		spellJobs(hook["jobs"])
	}
	return tree
}

// spellJobs spells the keys of each job in a list, and of its group's.
func spellJobs(list any) {
	jobs, _ := list.([]any)
	for _, job := range jobs {
		job := lefthookMap(job)
		spell(job, lefthookJobKeys)
		group := lefthookMap(job["group"])
		spell(group, lefthookGroupKeys)
		spellJobs(group["jobs"])
	}
}

// spell renames, in settings, a key that names one of fields in another
// case to the field's name, where no key is spelt so.
func spell(settings map[string]any, fields []string) {
	for _, key := range slices.Sorted(maps.Keys(settings)) {
		for _, field := range fields {
			if _, spelt := settings[field]; !spelt && key != field && strings.EqualFold(key, field) {
				settings[field] = settings[key]
				delete(settings, key)
			}
		}
	}
}
