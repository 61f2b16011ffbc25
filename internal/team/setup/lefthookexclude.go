package setup

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// lefthookSkipped says why lefthook skips git-queen's command, which a
// file it reads runs at its hook h: a skip: on the hook or on the command
// (any value but false: always, or in the git states, on the branches or
// after the commands it lists), an only: (any value but true: it skips it
// but then), or exclude_tags naming the command or a tag it has, with
// LEFTHOOK_EXCLUDE in the environment getenv reads added (split at commas:
// where a CI image or a sandbox sets it, the check does not run); the
// skip:, only:, tags and names of the groups around a job count for it,
// all as lefthook merges them (lefthookMerged); or a later file's run:
// for the command, which replaces git-queen's with one that does not
// call it (lefthook runs the last file's run:). "" when lefthook runs it,
// or h is not lefthook's hook running git-queen.
func (r *Repo) lefthookSkipped(h *Hook, getenv func(string) string) string {
	if h.Owner != OwnerLefthook || !h.RunsQueen {
		return ""
	}
	levels, excludeTags := r.lefthookMerged(h, getenv)
	if len(levels) < 2 {
		return ""
	}
	if run := levels[1].run; run.file != "" && !callsQueen([]byte(strings.Join(run.value, "\n")), h.Name) {
		return run.file + " replaces the run: of git-queen's command with " + strings.Join(run.value, " ") +
			", so lefthook does not run git-queen's check"
	}
	var own []string // the names and tags exclude_tags matches
	for i, l := range levels {
		if why := cmp.Or(l.skip.skips(l.on, "skip"), l.only.skips(l.on, "only")); why != "" {
			return why
		}
		if i > 0 {
			own = append(append(own, l.tags.value...), l.names...)
		}
	}
	for _, word := range excludeTags.value {
		if slices.Contains(own, word) {
			return excludeTags.file + " sets exclude_tags: " + strings.Join(excludeTags.value, ", ") + " on " + h.Name +
				", which names git-queen's command (" + word + ", its name or a tag it has), so lefthook skips it"
		}
	}
	exclude := ""
	if getenv != nil {
		exclude = getenv("LEFTHOOK_EXCLUDE")
	}
	for word := range strings.SplitSeq(exclude, ",") {
		if exclude != "" && slices.Contains(own, word) {
			return "LEFTHOOK_EXCLUDE=" + exclude + " is set here and names git-queen's command (" + word +
				", its name or a tag it has in " + cmp.Or(levels[1].tags.file, h.Via) + "), so lefthook skips it"
		}
	}
	return ""
}

// lefthookEntry is the command or job, in a hook's section of a lefthook
// configuration file, that runs git-queen's check: its key under
// commands: ("" for a job), and its settings as a document of the file's
// format whose top-level keys are its own (run, name, tags...); groups
// are so the group jobs around a job, the innermost first.
func lefthookEntry(file string, section []byte, hook string) (key string, entry []byte, groups [][]byte) {
	switch filepath.Ext(file) {
	case ".json", ".jsonc":
		var h struct{ Commands map[string]json.RawMessage }
		var jobs struct{ Jobs []json.RawMessage }
		json.Unmarshal(section, &h)
		json.Unmarshal(section, &jobs)
		for _, key := range slices.Sorted(maps.Keys(h.Commands)) {
			if callsQueen(h.Commands[key], hook) {
				return key, h.Commands[key], nil
			}
		}
		for list := jobs.Jobs; ; {
			i := slices.IndexFunc(list, func(job json.RawMessage) bool { return callsQueen(job, hook) })
			if i < 0 {
				return "", entry, groups
			}
			if entry != nil { // a group: a job of its runs git-queen
				groups = append([][]byte{entry}, groups...)
			}
			var job struct {
				Group struct{ Jobs []json.RawMessage }
			}
			json.Unmarshal(list[i], &job)
			entry, list = list[i], job.Group.Jobs
		}
	case ".toml":
		return tomlEntry(section, hook)
	}
	return yamlEntry(section, hook)
}

// tomlEntry is lefthookEntry for TOML: the table ([HOOK.commands.KEY] or
// [[HOOK.jobs]], [[HOOK.jobs.group.jobs]]...) whose keys run git-queen,
// and the last [[HOOK.jobs]]... above it of each group around it.
func tomlEntry(section []byte, hook string) (key string, entry []byte, groups [][]byte) {
	jobs := map[string][]byte{} // by path, the last job table left
	path := ""
	found := func() (string, []byte, [][]byte) {
		for group := path; strings.HasSuffix(group, ".group.jobs"); {
			group = strings.TrimSuffix(group, ".group.jobs")
			groups = append(groups, jobs[group])
		}
		return key, entry, groups
	}
	for _, line := range bytes.SplitAfter(section, []byte("\n")) {
		header := string(bytes.TrimSpace(line))
		if tomlTable().MatchString(header) {
			if callsQueen(entry, hook) {
				return found()
			}
			if key == "" {
				jobs[path] = entry
			}
			inner, _, _ := strings.Cut(strings.TrimLeft(header, "["), "]")
			keys := strings.Split(inner, ".")
			for i := range keys {
				keys[i] = strings.Trim(strings.TrimSpace(keys[i]), `"'`)
			}
			key, entry, path = keys[len(keys)-1], nil, strings.Join(keys, ".")
			if strings.HasPrefix(header, "[[") {
				key = "" // a job, named by its name key
			}
			continue
		}
		entry = append(entry, line...)
	}
	if callsQueen(entry, hook) {
		return found()
	}
	return "", nil, nil
}

// yamlEntry is lefthookEntry for YAML: around the run: that calls
// git-queen, the lines whose keys sit at its column or deeper, from the
// list item (a job) that starts them or below the key (a command) above
// them, moved left to that column; and so the list items above them
// at a lesser column, the groups around a job.
func yamlEntry(section []byte, hook string) (key string, entry []byte, groups [][]byte) {
	lines := bytes.SplitAfter(section, []byte("\n"))
	at := slices.IndexFunc(lines, func(line []byte) bool { return callsQueen(line, hook) })
	for at > 0 && !bytes.HasPrefix(bytes.TrimLeft(lines[at], " -"), []byte("run")) {
		at-- // the call is in a block (run: |)
	}
	if at < 0 {
		return "", nil, nil
	}
	key, entry, start := yamlBlock(lines, at)
	for i, column := start-1, yamlColumn(lines[start]); i >= 0; i-- {
		if yamlItem(lines[i]) && yamlColumn(lines[i]) < column {
			_, group, _ := yamlBlock(lines, i)
			groups, column = append(groups, group), yamlColumn(lines[i])
		}
	}
	return key, entry, groups
}

// yamlBlock is the entry (as yamlEntry's) whose line at is one of its
// keys, and the line it starts at.
func yamlBlock(lines [][]byte, at int) (key string, entry []byte, start int) {
	column := yamlColumn(lines[at])
	start, end := at, at+1
	for start > 0 && !(yamlItem(lines[start]) && yamlColumn(lines[start]) == column) && yamlColumn(lines[start-1]) >= column {
		start--
	}
	for end < len(lines) && yamlColumn(lines[end]) >= column && !(yamlItem(lines[end]) && yamlColumn(lines[end]) == column) {
		end++
	}
	if !yamlItem(lines[start]) && start > 0 {
		above, _, _ := bytes.Cut(lines[start-1], []byte(":"))
		key = strings.Trim(strings.TrimSpace(string(above)), `"'`)
	}
	for i, line := range lines[start:end] {
		if i == 0 && yamlItem(line) {
			line = bytes.Replace(line, []byte("- "), []byte("  "), 1)
		}
		entry = append(entry, line[min(column, len(line)-len(bytes.TrimLeft(line, " "))):]...)
	}
	return key, entry, start
}

// yamlColumn is where a YAML line's key starts, past its indentation and
// list item dashes; a blank or comment line belongs to what it is in.
func yamlColumn(line []byte) int {
	rest := bytes.TrimLeft(line, " -")
	if len(bytes.TrimSpace(rest)) == 0 || rest[0] == '#' {
		return len(line) + 1<<20
	}
	return len(line) - len(rest)
}

// yamlItem says whether a YAML line starts a list item.
func yamlItem(line []byte) bool { return bytes.HasPrefix(bytes.TrimLeft(line, " "), []byte("- ")) }
