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

// lefthookSpelt spells, in a file's settings, the key lefthook reads for
// each setting of a hook, command, job or group as doctor reads it, in
// lower case (Skip: as skip:), and takes the others of that setting out.
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
func lefthookSpelt(tree map[string]any, spelt lefthookSpellings) (either map[string]string) {
	either = map[string]string{}
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
	return either
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
		job, at := lefthookMap(job), append(slices.Clip(names), any(i))
		if name, isName := job["name"].(string); isName { // spell leaves name: as it is spelt
			at[len(at)-1] = name
		}
		random = cmp.Or(random, spell(job, lefthookJobKeys, spelt, lefthookSpeltAt(hook, "job", at)))
		group := lefthookMap(job["group"])
		random = cmp.Or(random, spell(group, lefthookGroupKeys, spelt, lefthookSpeltAt(hook, "group", at)))
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
		if len(keys) > 0 && spelt != nil && at != "" {
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

// lefthookShadow takes out of the files' settings of the hook h (spelt,
// of each file, as lefthookSpelt notes it) what lefthook does not read:
// where one file spells a setting as its field (Skip:, Commands:),
// lefthook reads that key of the merged mapping alone, whatever the order
// of the files, so the others' other spellings (skip:, commands:) count
// for nothing; and a list of jobs spelt other than jobs: (Jobs:), or in a
// group spelt other than group:, which lefthook does not merge by name:
// a later file's spelt the same replaces it. It says of the first it
// takes out that holds git-queen's check why lefthook does not run that;
// "" where none does.
func lefthookShadow(h *Hook, files []string, spelt []lefthookSpellings) (shadowed string) {
	exact := map[string]int{} // a setting: a file that spells it as its field
	for i := range files {
		for key, s := range spelt[i] {
			if s.exact {
				exact[key] = i
			}
		}
	}
	for i, file := range files {
		for _, key := range slices.Sorted(maps.Keys(spelt[i])) {
			s, cut := spelt[i][key], strings.LastIndexByte(key, 0)+1
			at, lower := key[:cut], key[cut:]
			by, shadows := exact[key]
			say := "%[1]s spells %[2]s: as %[3]s on %[4]s, where %[5]s spells it %[6]s; lefthook reads the key spelt as its field alone, " +
				"whatever the file, so it does not read %[5]s's, nor run git-queen's check there: keep one spelling"
			if group := strings.Replace(at, "\x00group[", "\x00job[", 1) + "group"; s.exact || !shadows {
				by = slices.IndexFunc(spelt[i+1:], func(later lefthookSpellings) bool { return later[key].keys == s.keys }) + i + 1
				shadows = by > i && lower == "jobs" && (s.keys != "jobs:" || strings.Contains(at, "\x00group[") && spelt[i][group].keys != "group:")
				say = "%[1]s's %[3]s on %[4]s replaces %[5]s's whole, since lefthook merges jobs by name only in a list spelt jobs: " +
					"(in a group spelt group:), so it does not run git-queen's check there: spell them so"
			}
			if !shadows || !strings.HasPrefix(key, h.Name+"\x00") {
				continue
			}
			if shadowed == "" && lefthookRunsQueen(s.in[lower], h.Name) {
				hook, where, _ := strings.Cut(strings.TrimSuffix(at, "\x00"), "\x00")
				if where = strings.TrimSpace(strings.NewReplacer("[", " ", "]", "").Replace(where)); where != "hook" {
					hook = where + " of " + hook
				}
				shadowed = fmt.Sprintf(say, files[by], lower, spelt[by][key].keys, hook, file, s.keys)
			}
			for k := range s.in {
				if strings.EqualFold(k, lower) {
					delete(s.in, k)
				}
			}
			delete(spelt[i], key)
		}
	}
	return shadowed
}

// lefthookJobName is the name lefthook gives a job: its Name:, else the
// one key that spells it in another case (name:); "" for none.
func lefthookJobName(job map[string]any) string {
	if name, ok := job["Name"].(string); ok {
		return name
	}
	for key, name := range job {
		if name, ok := name.(string); ok && strings.EqualFold(key, "name") {
			return name
		}
	}
	return ""
}

// lefthookSpeltApart says where two of files spell a setting of the hook
// h, or of the command, job or groups at p, two ways (Skip: and skip:;
// spelt, of each file, as lefthookSpelt notes it): lefthook merges both
// keys into one mapping, then reads the one spelt as its field, else one
// of the others at random, so doctor cannot tell what it reads. "" where
// none do.
func lefthookSpeltApart(h *Hook, p lefthookPlace, files []string, spelt []lefthookSpellings) string {
	on := map[string]string{lefthookSpeltAt(h.Name, "hook", nil): h.Name}
	if p.command != "" {
		on[lefthookSpeltAt(h.Name, "command", []any{p.command})] = "git-queen's command"
	}
	for i := range p.jobs {
		on[lefthookSpeltAt(h.Name, "job", p.jobs[:i+1])] = "git-queen's command"
		if i < len(p.jobs)-1 { // a job whose group: holds git-queen's
			on[lefthookSpeltAt(h.Name, "job", p.jobs[:i+1])] = "the group around git-queen's command"
			on[lefthookSpeltAt(h.Name, "group", p.jobs[:i+1])] = "the group around git-queen's command"
		}
	}
	delete(on, "")
	first := map[string]int{} // a setting: the first file that spells it
	for i := range files {
		for _, key := range slices.Sorted(maps.Keys(spelt[i])) {
			at := key[:strings.LastIndexByte(key, 0)+1]
			j, seen := first[key]
			if on[at] != "" && !seen {
				first[key] = i
			} else if on[at] != "" && !spelt[i][key].exact && spelt[j][key].keys != spelt[i][key].keys {
				return fmt.Sprintf("%s spells %s: on %s as %s, and %s as %s; lefthook merges both into one mapping and reads one of them, "+
					"so doctor cannot tell whether it runs git-queen's check: keep one spelling",
					files[j], key[len(at):], on[at], spelt[j][key].keys, files[i], spelt[i][key].keys)
			}
		}
	}
	return ""
}
