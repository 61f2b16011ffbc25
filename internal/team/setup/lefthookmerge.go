package setup

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// lefthookSetting is the value of one key lefthook merges, and the file
// that set it last ("" and nil where none does): as messages show it
// (value), and as the parser gave it (raw).
type lefthookSetting struct {
	file  string
	value []string
	raw   any
}

// lefthookLevel is what lefthook merges of the hook, git-queen's command,
// or a group around it: what on names it in a message, its names (the
// command's key, a job's or group's name), and its settings that decide
// whether the command runs, and what it runs (run: of git-queen's
// command, which a later file may replace, a job's args:, and the run:
// or script: of a group's job, which lefthook runs in place of the
// group), when (a
// command's priority:), for which files (lefthookFilters), and whether
// it gets git's refs (use_stdin:).
type lefthookLevel struct {
	on                              string
	names                           []string
	skip, only, tags, run, priority lefthookSetting
	args, stdin, script             lefthookSetting
	filters                         [len(lefthookFilters)]lefthookSetting
}

// skips says why a skip: (key "skip") or only: (key "only") setting of
// what on names skips git-queen's check; "" when it does not. lefthook
// skips a command where skip: holds, or only: does not (SkipChecker):
// true; the name of the git state it is in (merge, merge-commit,
// rebase, or "" outside them: nearly always); a list with one item that
// holds (a state, a ref: on that branch, a run: that succeeds); nothing
// else (false, a number, a mapping, "yes", "true"), nor an empty list.
func (s lefthookSetting) skips(on, key string) string {
	if s.raw == nil {
		return ""
	}
	holds := lefthookHolds(s.raw)
	if key == "only" {
		holds = map[string]string{"always": "never", "never": "always", "sometimes": "sometimes"}[holds]
	}
	shown := strings.Join(s.value, ", ")
	if text, isString := s.raw.(string); isString && (text == "" || strings.EqualFold(text, "true") || strings.EqualFold(text, "false")) {
		shown = strconv.Quote(text)
	} else if list, isList := s.raw.([]any); isList && len(s.value) < len(list) || isList && len(list) == 0 {
		text, _ := json.Marshal(list)
		shown = string(text)
	}
	when := ""
	switch holds {
	case "never":
		return ""
	case "sometimes":
		when = map[string]string{"skip": " then", "only": " but then"}[key] + " (in that git state, on that branch, or when that command succeeds)"
	}
	return s.file + " sets " + key + ": " + shown + " on " + on + ", so lefthook skips git-queen's check" + when
}

// lefthookHolds says when lefthook holds a skip: or only: value true
// (see skips): "always", "never", or "sometimes".
func lefthookHolds(value any) string {
	switch value := value.(type) {
	case bool:
		return map[bool]string{true: "always", false: "never"}[value]
	case string:
		switch value {
		case "":
			return "always"
		case "merge", "merge-commit", "rebase":
			return "sometimes"
		}
	case []any:
		holds := "never"
		for _, item := range value {
			ref, byRef := lefthookMap(item)["ref"].(string)
			run, byRun := lefthookMap(item)["run"].(string)
			if text, isString := item.(string); isString && lefthookHolds(text) == "always" {
				return "always"
			} else if isString && lefthookHolds(text) == "sometimes" || byRef && ref != "" || byRun && run != "" {
				holds = "sometimes"
			}
		}
		return holds
	}
	return "never"
}

// lefthookGuard is a command or job of lefthook's hook that runs
// git-queen's check in a file lefthook reads: what lefthook merges of it
// (the hook, it, then the groups around it, innermost first), and whether
// that run: calls git-queen outside quotes, as a command rather than as
// words another prints (echo "git-queen hook ..."); command is its key
// under commands: ("" for a job); dropped the file that takes the command
// or job away, where none after it sets it again: a command, by the
// hook's commands: that is no mapping (commands: with nothing after it);
// a job, by a group around it whose group: is no mapping, or its jobs:
// no list (lefthookPlace.dropped); spelt why doctor cannot tell what
// lefthook reads of it (lefthookSpeltApart), "" where it can.
type lefthookGuard struct {
	levels  []lefthookLevel
	plain   bool
	command string
	dropped string
	spelt   string
}

// lefthookGuards is what lefthook merges, of the files it reads (in the
// environment getenv reads), for each command or job of its hook h whose
// run: calls git-queen's check in one of them, in the order lefthook runs
// them (lefthookRunOrder); and the hook's exclude_tags.
// Of the files, the last that sets a key decides (lefthook merges each
// over those before it): a command is found in each by its key under
// commands:, a job by its name: key (lefthook merges jobs by that alone,
// not by Name:), in the group of its group's name. shadowed is
// lefthookShadow's.
func (r *Repo) lefthookGuards(h *Hook, getenv func(string) string) (guards []lefthookGuard, excludeTags lefthookSetting, shadowed string) {
	files, _, _ := r.lefthookFiles(getenv)
	hooks, spelt := make([]map[string]any, len(files)), make([]lefthookSpellings, len(files))
	for i, file := range files {
		spelt[i] = lefthookSpellings{}
		hooks[i] = lefthookMap(lefthookRead(r.TopLevel, file, spelt[i]).tree[h.Name])
	}
	shadowed = lefthookShadow(h, files, spelt)
	var places []lefthookPlace
	plain := map[string]bool{}
	dropped := map[string]string{} // a command's key: the file that takes it away
	for i, file := range files {
		excludeTags.read(file, hooks[i], "exclude_tags")
		if commands, set := hooks[i]["commands"]; set && lefthookMap(commands) == nil {
			for _, p := range places {
				dropped[p.command] = file // lefthook merges what is no mapping over the mapping before
			}
		}
		for key := range lefthookMap(hooks[i]["commands"]) {
			delete(dropped, key)
		}
		lefthookPlaces(file, hooks[i], func(p lefthookPlace, run any) {
			text, _ := run.(string)
			if !callsQueen([]byte(text), h.Name) {
				return
			}
			key := fmt.Sprint(p)
			if _, seen := plain[key]; !seen {
				places = append(places, p)
			}
			plain[key] = plain[key] || callsQueen([]byte(outsideQuotes(text)), h.Name)
		})
	}
	for _, p := range places {
		levels := []lefthookLevel{{on: h.Name}, {on: "git-queen's command"}}
		if p.command != "" {
			levels[1].names = []string{p.command}
		}
		for i := 1; i < len(p.jobs); i++ {
			levels = append(levels, lefthookLevel{on: "the group around git-queen's command"})
		}
		gone := dropped[p.command]
		for i, file := range files {
			levels[0].read(file, hooks[i])
			for j, settings := range p.in(file, hooks[i]) {
				levels[j+1].read(file, settings)
				if name := lefthookJobName(settings); name != "" && p.command == "" {
					levels[j+1].names = []string{name}
				}
			}
			if p.command == "" {
				p.dropped(file, hooks[i]["jobs"], 0, &gone)
			}
		}
		guards = append(guards, lefthookGuard{levels, plain[fmt.Sprint(p)], p.command, gone, lefthookSpeltApart(h, p, files, spelt)})
	}
	slices.SortStableFunc(guards, lefthookRunOrder)
	return guards, excludeTags, shadowed
}

// lefthookRunOrder orders commands and jobs as lefthook 2 runs them
// (config.CommandsToJobs): its jobs first, in the order it merges them
// (those of the files in turn, one already seen where it was), then its
// commands, by priority: (those without one last), then by the number
// their key starts with (those without one last), then by key; not in
// the order of the files.
func lefthookRunOrder(a, b lefthookGuard) int {
	if a.command == "" || b.command == "" {
		return cmp.Compare(len(a.command), len(b.command)) // a job, "", first
	}
	last := func(n, none int) int { // none (no priority, no number) after any other
		if n == none {
			return math.MaxInt
		}
		return n
	}
	priority := func(g lefthookGuard) int {
		n, _ := strconv.Atoi(strings.Join(g.levels[1].priority.value, ""))
		return n
	}
	return cmp.Or(cmp.Compare(last(priority(a), 0), last(priority(b), 0)),
		cmp.Compare(last(leadingNumber(a.command), -1), last(leadingNumber(b.command), -1)),
		strings.Compare(a.command, b.command))
}

// leadingNumber is the number name starts with (10 of 10_lint); -1 when
// it starts with no digit.
func leadingNumber(name string) int {
	digits := name[:len(name)-len(strings.TrimLeft(name, "0123456789"))]
	n, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return n
}

// read takes what settings, a file's, set of the keys that decide whether
// git-queen's command runs, and what it runs.
func (l *lefthookLevel) read(file string, settings map[string]any) {
	l.skip.read(file, settings, "skip")
	l.only.read(file, settings, "only")
	l.tags.read(file, settings, "tags")
	l.run.read(file, settings, "run")
	l.script.read(file, settings, "script")
	l.args.read(file, settings, "args")
	l.stdin.read(file, settings, "use_stdin")
	l.priority.read(file, settings, "priority")
	for i, key := range lefthookFilters {
		l.filters[i].read(file, settings, key)
	}
}

// read takes the value of key in settings, a file's, where they set it.
func (s *lefthookSetting) read(file string, settings map[string]any, key string) {
	if value, ok := settings[key]; ok {
		*s = lefthookSetting{file, lefthookWords(file, value), value}
	}
}

// lefthookWords is a setting's value as messages show it: a string, or
// each of a list, as it is; a boolean or a number as YAML writes it; a
// mapping in a list as its keys and values (ref: main), but in JSON the
// value as JSON.
func lefthookWords(file string, value any) []string {
	list, isList := value.([]any)
	if !isList {
		list = []any{value}
	}
	var words []string
	for _, item := range list {
		switch item := item.(type) {
		case nil:
		case string:
			if item != "" {
				words = append(words, item)
			}
		case map[string]any:
			if strings.HasPrefix(filepath.Ext(file), ".json") {
				text, _ := json.Marshal(value)
				return []string{string(text)}
			}
			for _, key := range slices.Sorted(maps.Keys(item)) {
				words = append(words, fmt.Sprintf("%s: %v", key, item[key]))
			}
		default:
			words = append(words, fmt.Sprint(item))
		}
	}
	return words
}

// lefthookPlace is where a command or job is in a hook's settings: a
// command by its key under commands:, a job by its name: and those of the
// groups around it, the outermost first, since lefthook merges jobs by
// that key; one without a name (or in a group without one) by its index in
// its list, in the one file it is in (file), since lefthook merges it
// with none.
type lefthookPlace struct {
	command string
	jobs    []any // each a name (string) or an index (int)
	file    string
}

// lefthookPlaces calls add for each command and job (those in groups too)
// of a file's settings of a hook, with its run:.
func lefthookPlaces(file string, hook map[string]any, add func(p lefthookPlace, run any)) {
	commands := lefthookMap(hook["commands"])
	for _, key := range slices.Sorted(maps.Keys(commands)) {
		add(lefthookPlace{command: key}, lefthookMap(commands[key])["run"])
	}
	var walk func(list any, group lefthookPlace)
	walk = func(list any, group lefthookPlace) {
		jobs, _ := list.([]any)
		for i, item := range jobs {
			job := lefthookMap(item)
			p := lefthookPlace{jobs: append(slices.Clip(group.jobs), i), file: group.file}
			if name, ok := job["name"].(string); ok {
				p.jobs[len(p.jobs)-1] = name
			} else {
				p.file = file
			}
			add(p, job["run"])
			walk(lefthookMap(job["group"])["jobs"], p)
		}
	}
	walk(hook["jobs"], lefthookPlace{})
}

// in is what a file's settings of the hook give at p: the command's or
// job's settings, then those of the groups around it, innermost first;
// nil for each the file does not set.
func (p lefthookPlace) in(file string, hook map[string]any) []map[string]any {
	if p.command != "" {
		return []map[string]any{lefthookMap(lefthookMap(hook["commands"])[p.command])}
	}
	found := make([]map[string]any, len(p.jobs))
	if p.file != "" && p.file != file {
		return found
	}
	list := hook["jobs"]
	for i, step := range p.jobs {
		jobs, _ := list.([]any)
		var job map[string]any
		for j, item := range jobs {
			if settings := lefthookMap(item); step == any(j) || settings != nil && settings["name"] == step {
				job = settings // the last of its name: lefthook merges each over those before it
			}
		}
		if job == nil {
			break
		}
		found[len(p.jobs)-1-i] = job
		list = lefthookMap(job["group"])["jobs"]
	}
	return found
}

// outsideQuotes is a command's text without what it quotes ('...',
// "..."): the words it runs, not those it passes.
func outsideQuotes(text string) string {
	var out strings.Builder
	var quote rune
	for _, c := range text {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '\'' || c == '"':
			quote = c
		default:
			out.WriteRune(c)
		}
	}
	return out.String()
}

// dropped sets *by to file where a file's settings of the hook take the
// job at p away, and to "" where they name it again, in the order
// lefthook merges them (list is the file's jobs: at depth in p.jobs):
// lefthook merges a job over the one of its name before it key by key
// (mergeJobsSlice), the lists of jobs of their groups by name only where
// both are lists of some jobs, so that a group: that is no mapping (group:
// with nothing after it), or a group's jobs: that is no list (jobs: with
// nothing after it, lefthook 2.2.2), replaces the group's jobs, git-queen's
// among them; jobs: [] keeps them.
func (p lefthookPlace) dropped(file string, list any, depth int, by *string) {
	jobs, _ := list.([]any)
	for i, item := range jobs {
		job := lefthookMap(item)
		if step := p.jobs[depth]; job == nil || job["name"] != step && (step != any(i) || file != p.file) {
			continue
		}
		if depth == len(p.jobs)-1 {
			*by = ""
			continue
		}
		group, setGroup := job["group"]
		sub, setJobs := lefthookMap(group)["jobs"]
		if _, isList := sub.([]any); setGroup && lefthookMap(group) == nil || setJobs && !isList {
			*by = file
			continue
		}
		p.dropped(file, sub, depth+1, by)
	}
}
