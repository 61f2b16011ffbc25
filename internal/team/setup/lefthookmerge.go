package setup

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// lefthookSetting is the value of one key lefthook merges, and the file
// that set it last ("" and nil where none does); quoted when the value
// has quotes: a string, never a boolean.
type lefthookSetting struct {
	file   string
	value  []string
	quoted bool
}

// lefthookLevel is what lefthook merges of the hook, git-queen's command,
// or a group around it: what on names it in a message, its names (the
// command's key, a job's or group's name), and its settings that decide
// whether the command runs, and what it runs (run: of git-queen's
// command, which a later file may replace).
type lefthookLevel struct {
	on                    string
	names                 []string
	skip, only, tags, run lefthookSetting
}

// skips says why a skip: (key "skip") or only: (key "only") setting of
// what on names skips git-queen's check; "" when it does not.
func (s lefthookSetting) skips(on, key string) string {
	always, never, then := "true", "false", " then" // skip: true skips it always, skip: false never
	if key == "only" {
		always, never, then = "false", "true", " but then"
	}
	// YAML spells a boolean True or TRUE too (lefthook runs a command
	// with skip: False). A quoted "true" or "false" is the name of a git
	// state, as merge is, which never holds: false to both keys (lefthook
	// runs a command with skip: "true", and skips one with only: "true").
	shown := strings.Join(s.value, ", ")
	is := func(word string) bool { return len(s.value) == 1 && strings.EqualFold(s.value[0], word) }
	if s.quoted && (is("true") || is("false")) {
		shown, is = `"`+shown+`"`, func(word string) bool { return word == "false" }
	}
	if len(s.value) == 0 || is(never) {
		return ""
	}
	when := ""
	if !is(always) {
		when = then + " (in that git state, on that branch, or when that command succeeds)"
	}
	return s.file + " sets " + key + ": " + shown + " on " + on + ", so lefthook skips git-queen's check" + when
}

// lefthookMerged is what lefthook merges, of the files it reads, for its
// hook h running git-queen: the hook, git-queen's command, then the groups
// around it, innermost first; and the hook's exclude_tags. Of the files,
// the last that sets a key decides: a command is found in each by its key
// under commands:, a job by its name, in the group of its group's name.
// Nothing when h.Via cannot be read.
func (r *Repo) lefthookMerged(h *Hook, getenv func(string) string) (levels []lefthookLevel, excludeTags lefthookSetting) {
	text, err := readRepoFile(filepath.Join(r.TopLevel, h.Via))
	if err != nil {
		return nil, excludeTags
	}
	key, entry, groups := lefthookEntry(h.Via, lefthookSection(h.Via, text, h.Name), h.Name)
	docs := append([][]byte{nil, entry}, groups...) // each level's settings in h.Via
	levels = []lefthookLevel{{on: h.Name}, {on: "git-queen's command"}}
	for range groups {
		levels = append(levels, lefthookLevel{on: "the group around git-queen's command"})
	}
	for i := range levels[1:] {
		levels[i+1].names = lefthookList(h.Via, docs[i+1], "name")
	}
	if key != "" {
		levels[1].names = append(levels[1].names, key)
	}
	set := func(s *lefthookSetting, file string, doc []byte, name string) {
		if section := lefthookSection(file, doc, name); len(section) > 0 {
			*s = lefthookSetting{file, lefthookList(file, doc, name), quotedValue(file, section)}
		}
	}
	read := func(l *lefthookLevel, file string, doc []byte) {
		set(&l.skip, file, doc, "skip")
		set(&l.only, file, doc, "only")
		set(&l.tags, file, doc, "tags")
		set(&l.run, file, doc, "run")
	}
	files, _ := lefthookFiles(r.TopLevel, getenv)
	for _, file := range files {
		text, err := readRepoFile(filepath.Join(r.TopLevel, file))
		if err != nil {
			continue
		}
		hook := lefthookChild(file, text, h.Name)
		read(&levels[0], file, hook)
		set(&excludeTags, file, hook, "exclude_tags")
		switch {
		case file == h.Via:
			for i := range levels[1:] {
				read(&levels[i+1], file, docs[i+1])
			}
		case key != "":
			read(&levels[1], file, lefthookChild(file, lefthookChild(file, hook, "commands"), key))
		default: // jobs merge by name, those of a group in the group of its name
			doc := hook
			for i := len(levels) - 1; i > 0 && len(doc) > 0 && len(levels[i].names) == 1; i-- {
				job := lefthookJob(file, doc, levels[i].names[0])
				if job != nil {
					read(&levels[i], file, job)
				}
				doc = lefthookChild(file, job, "group")
			}
		}
	}
	return levels, excludeTags
}

// quotedValue says whether the value of a key's section (a JSON one is
// the value alone) has quotes, after the key, which may have its own
// ("skip": true is the boolean).
func quotedValue(file string, section []byte) bool {
	section = uncommented(section)
	if ext := filepath.Ext(file); ext != ".json" && ext != ".jsonc" {
		section = section[bytes.IndexAny(section, ":=")+1:] // the key's : or =
	}
	return bytes.ContainsAny(section, `"'`)
}

// lefthookJob is the last job named name in the jobs: list of doc (a
// hook's or a group's settings, as lefthookChild gives them), as a
// document of the file's format whose top-level keys are its own; nil
// when there is none.
func lefthookJob(file string, doc []byte, name string) (job []byte) {
	var items [][]byte
	switch filepath.Ext(file) {
	case ".json", ".jsonc":
		var list []json.RawMessage
		json.Unmarshal(lefthookChild(file, doc, "jobs"), &list)
		for _, item := range list {
			items = append(items, item)
		}
	case ".toml": // [[jobs]] tables, each with its [jobs.group] and [[jobs.group.jobs]]
		for _, item := range bytes.Split(tomlSection(doc, "jobs"), []byte("[[jobs]]")) {
			items = append(items, lefthookChild(file, append([]byte("[[jobs]]"), item...), "jobs"))
		}
	default: // list items at column 0, each made a key's value to be read as one
		for _, item := range bytes.SplitAfter(lefthookChild(file, doc, "jobs"), []byte("\n")) {
			if bytes.HasPrefix(item, []byte("- ")) {
				items = append(items, []byte("item:\n"))
				item = append([]byte("  "), item[2:]...)
			}
			if len(items) > 0 {
				items[len(items)-1] = append(items[len(items)-1], item...)
			}
		}
		for i := range items {
			items[i] = lefthookChild(file, items[i], "item")
		}
	}
	for _, item := range items {
		if slices.Equal(lefthookList(file, item, "name"), []string{name}) {
			job = item
		}
	}
	return job
}
