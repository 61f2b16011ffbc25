package setup

import (
	"cmp"
	"slices"
	"strings"
)

// lefthookSkipped says why lefthook skips git-queen's check, which a file
// it reads runs at its hook h: why it skips each command or job that runs
// it (lefthookGuards; those whose run: calls git-queen outside quotes, if
// any), the first's that lefthook runs; "" when it runs one, or h is not
// lefthook's hook running git-queen. It skips one for a skip: on the hook
// or on it that holds, always or sometimes, or an only: that does not
// (lefthookHolds), a glob:, root:, file_types:, exclude: or files:
// (lefthookFilters: for the files it leaves out), a list of files its
// run: passes that is empty (listsNoFile), or exclude_tags naming it or a
// tag it has, with LEFTHOOK_EXCLUDE in the environment getenv reads added
// (split at commas: where a CI image or a sandbox sets it, the check does
// not run); the skip:, only:, tags and names of the groups around a job
// count for it; or a later file's run: for it, which replaces git-queen's
// with one that does not call it (lefthook runs the last file's run:),
// or its commands: that is no mapping, or a group around it whose group:
// or jobs: is nothing, or whose job sets run: or script: (lefthook runs
// that instead of the group). Where it runs one, and a file
// names remotes:, what lefthook fetches (lefthook install) and merges
// may skip it, and doctor does not read it: it says so.
func (r *Repo) lefthookSkipped(h *Hook, getenv func(string) string) string {
	if h.Owner != OwnerLefthook || !h.RunsQueen {
		return ""
	}
	guards, excludeTags, shadowed := r.lefthookGuards(h, getenv)
	if len(guards) == 0 {
		return shadowed
	}
	if plain := slices.DeleteFunc(slices.Clone(guards), func(g lefthookGuard) bool { return !g.plain }); len(plain) > 0 {
		guards = plain
	}
	first := ""
	for _, g := range guards {
		why := g.skipped(h, excludeTags, getenv)
		if why == "" {
			first = ""
			break
		}
		first = cmp.Or(first, why)
	}
	if _, remotes, _ := r.lefthookFiles(getenv); first == "" && remotes != "" {
		return remotes + " names remotes:, configurations lefthook fetches from git repositories (lefthook install) and merges " +
			"over it, which doctor does not read: whether one skips git-queen's check, it cannot tell"
	}
	return first
}

// lefthookFilters are the settings of a command or job, or of the group
// around it, that pick the files it runs for: lefthook skips it where
// none is left ("no matching staged files", "no files for inspection").
// A hook may set exclude: and files: too.
var lefthookFilters = [...]string{"glob", "root", "file_types", "exclude", "files"}

// filtered says why lefthook skips git-queen's check at its hook for a
// setting of l that picks files (lefthookFilters): where none of those
// the commit stages (pre-commit) or the push sends (pre-push) passes it,
// and, at any hook, where files: lists none. "" when l sets none.
func (l lefthookLevel) filtered(hook string, isHook bool) string {
	for i, s := range l.filters {
		key, sent := lefthookFilters[i], map[string]string{"pre-commit": "the commit stages", "pre-push": "the push sends"}[hook]
		switch {
		case len(s.value) == 0 || isHook && key != "exclude" && key != "files":
		case key == "files":
			return s.file + " sets files: " + strings.Join(s.value, " ") + " on " + l.on +
				", so lefthook skips git-queen's check where that command lists no file"
		case sent != "":
			return s.file + " sets " + key + ": " + strings.Join(s.value, ", ") + " on " + l.on + ", so lefthook skips git-queen's check where no file " +
				sent + " passes it: a change to a held path it leaves out is not checked"
		}
	}
	return ""
}

// skipped says why lefthook skips g (see lefthookSkipped); "" when it
// runs it.
func (g lefthookGuard) skipped(h *Hook, excludeTags lefthookSetting, getenv func(string) string) string {
	if g.spelt != "" {
		return g.spelt
	}
	if g.command != "" && g.dropped != "" {
		return g.dropped + " sets the commands: of " + h.Name + " to no mapping, which takes away the commands before it, " +
			"git-queen's included, so lefthook does not run git-queen's check"
	}
	if g.dropped != "" {
		return g.dropped + " sets the group: around git-queen's job, or that group's jobs:, to nothing (or to what is no list), " +
			"which takes away the group's jobs before it, git-queen's included, so lefthook does not run git-queen's check"
	}
	if run := g.levels[1].run; run.file != "" && !callsQueen([]byte(strings.Join(run.value, "\n")), h.Name) {
		return run.file + " replaces the run: of git-queen's command with " + strings.Join(run.value, " ") +
			", so lefthook does not run git-queen's check"
	}
	for _, l := range g.levels[2:] { // the jobs whose group: holds git-queen's
		if s, key := l.run, "run"; len(s.value) > 0 || len(l.script.value) > 0 {
			if len(s.value) == 0 {
				s, key = l.script, "script"
			}
			return s.file + " sets " + key + ": on " + l.on + ", which lefthook runs in place of the group's jobs, " +
				"git-queen's included, so lefthook does not run git-queen's check"
		}
	}
	var own []string // the names and tags exclude_tags matches
	for i, l := range g.levels {
		if why := cmp.Or(l.skip.skips(l.on, "skip"), l.only.skips(l.on, "only"), l.filtered(h.Name, i == 0)); why != "" {
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
				", its name or a tag it has in " + cmp.Or(g.levels[1].tags.file, h.Via) + "), so lefthook skips it"
		}
	}
	return g.levels[1].listsNoFile(h.Name)
}

// listsNoFile says why lefthook skips git-queen's command at its hook for
// a list of files its run: (or a job's args:) passes: lefthook skips a
// command where such a list is empty ("no files for inspection").
// {staged_files} lists the files the commit adds, copies, modifies or
// renames, none it deletes; {push_files} those HEAD differs in, and
// that still exist, from where its branch is pushed to (@{push}). At
// pre-push lefthook skips a command where that list is empty whatever
// it passes, unless it passes a list that is not ({all_files}, {files}).
// "" when it runs the command whatever the files.
func (l lefthookLevel) listsNoFile(hook string) string {
	lists := strings.Join(append(slices.Clone(l.run.value), l.args.value...), "\n")
	if hook == "pre-push" && !strings.Contains(lists, "{staged_files}") &&
		!strings.Contains(lists, "{all_files}") && !strings.Contains(lists, "{files}") {
		return "lefthook runs a pre-push command only where HEAD differs from where its branch is pushed to (@{push}) in a file that still exists " +
			"(else it says \"no matching push files\"), whatever the push sends: a push of a branch other than the one checked out, " +
			"or of commits that only delete a held file, is not checked"
	}
	for i, s := range [...]lefthookSetting{l.run, l.args} {
		text := strings.Join(s.value, "\n")
		passes := func(list string) string {
			return s.file + " passes " + list + " in the " + [...]string{"run", "args"}[i] + ": of git-queen's command, so lefthook skips it"
		}
		switch {
		case strings.Contains(text, "{staged_files}") && hook == "pre-push":
			return passes("{staged_files}") + " where nothing is staged, as at almost every push: take {staged_files} out"
		case strings.Contains(text, "{staged_files}"):
			return passes("{staged_files}") + " where the commit stages no file but those it deletes (it lists no deleted file): " +
				"a change that only deletes a held file is not checked; take {staged_files} out (git-queen reads the staged changes itself)"
		case strings.Contains(text, "{push_files}"):
			return passes("{push_files}") + " where HEAD has no change to a file that still exists to push (@{push}), " +
				"as after every push: take {push_files} out"
		}
	}
	return ""
}
