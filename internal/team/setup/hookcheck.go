package setup

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/hooks"
)

// ownerNames are the owners as a sentence names them.
var ownerNames = map[string]string{
	OwnerQueen:     "git-queen's hook",
	OwnerHusky:     "husky's hook",
	OwnerLefthook:  "lefthook's hook",
	OwnerPreCommit: "the pre-commit framework's hook",
	OwnerOther:     "a hook that is not git-queen's",
}

// checkHooks is one check a hook of hooks.Names: which hook git runs,
// whose it is, whether it runs git-queen's check, and what that guards.
func (r *Repo) checkHooks(o Options) []Check {
	var out []Check
	for _, name := range hooks.Names {
		out = append(out, r.checkHook(name, o))
	}
	return out
}

// HookChecks are doctor's lines for the hooks, for `git queen hooks
// status`, in the environment getenv reads.
func (r *Repo) HookChecks(getenv func(string) string) []Check {
	defer r.answering()()
	return r.checkHooks(Options{Getenv: getenv})
}

func (r *Repo) checkHook(name string, o Options) Check {
	defer r.answering()() // a run: each of owner and the checks below reads the hook manager's configuration
	var did string
	c := Check{Name: name, Fixable: true, forInit: !o.NoHooks,
		fix: func() (err error) { did, err = r.InstallHookNamed(name, o.Force, o.Getenv); return err },
		did: func() string { return did }}
	h, err := r.HookInfoFor(name, o.Getenv)
	if err != nil {
		// init cannot install the hook: it fails, saying why.
		return Check{Name: name, Status: Fail, Message: err.Error(), forInit: !o.NoHooks, fix: func() error { return err }}
	}
	where := r.shown(h.Path)
	guards := "guards " + h.Guards
	unloadable, tooLarge := r.frameworkUnloadable(h), cmp.Or(r.frameworkTooLarge(h), managerUnread(h))
	switch {
	case h.Owner == OwnerHusky && h.State.ours():
		c.Status, c.Message = Fail, fmt.Sprintf("git-queen's hook is in husky's generated directory (%s), where an earlier "+
			"git-queen put it: husky's own %s no longer runs, and npm install overwrites it; init takes it out and puts husky's back", where, h.AddTo)
	case h.Owner == OwnerLefthook && h.configRefused != "":
		c.Status, c.fix, c.Fixable = Fail, nil, false
		c.Message = fmt.Sprintf("git runs lefthook's hook (%s), but %s", where, lefthookConfigDir(h.AddTo, h.configRefused, "the hook"))
	case tooLarge != "":
		c.warnOnly(fmt.Sprintf("git runs %s (%s); %s", ownerNames[h.Owner], where, tooLarge))
	case h.Managed != "" && !h.RunsQueen && unloadable != "":
		c.Status, c.fix, c.Fixable, c.elsewhere = Fail, nil, false, h
		c.Message = fmt.Sprintf("%s, but %s; and have it run git-queen: add to %s", r.whatRuns(h, o.Getenv), unloadable, h.Instruction())
	case h.Managed != "" && !h.RunsQueen:
		c.Status, c.fix, c.Fixable, c.elsewhere = Fail, nil, false, h
		c.Message = fmt.Sprintf("%s, so %s; add to %s", r.whatRuns(h, o.Getenv), hookMissingMeans[name], h.Instruction())
	case h.Owner == OwnerQueen && !h.Executable:
		c.Status, c.Message = Fail, where+" is not executable, so git does not run it"
	case h.Owner == OwnerQueen:
		c.Status, c.Message = OK, fmt.Sprintf("git-queen's hook (%s) %s", where, guards)
		if h.State == HookOutdated {
			c.Status, c.Message = Warn, fmt.Sprintf("git-queen's hook (%s) is an earlier version; it %s", where, guards)
		} else if h.State == HookNewer {
			c.Status, c.Message = Warn, fmt.Sprintf("git-queen's hook (%s) was written by a newer git-queen: upgrade git-queen here "+
				"(init leaves the hook as it is); it %s", where, guards)
		}
		if h.Chained != "" {
			c.Message += r.chainedRuns(h.Chained)
		}
		if lefthook := r.lefthookToCome(h, o.Getenv); lefthook != nil && c.Status == OK {
			c.warnOnly(fmt.Sprintf("; but %s configures %s: once lefthook install runs, lefthook's hook replaces this one "+
				"(kept as %s.old, which it does not run); add to %s", lefthook.AddTo, name, name, lefthook.Instruction()))
		}
		if script := r.huskyToCome(h); script != nil && c.Status == OK {
			c.warnOnly("; but this repository has husky's scripts (.husky/): once husky runs (npm install), git runs .husky/_ instead " +
				"and this hook stops; add to " + script.Instruction())
		}
		if h.Managed != "" {
			c.warnOnly(fmt.Sprintf("; but %s is %s: committed, the hook stops clones without git-queen; "+
				"git queen hooks uninstall, then add to %s", where, h.Managed, h.Instruction()))
		}
	case h.RunsQueen && !h.Executable && h.State != HookMissing:
		// git ignores a hook file that is not executable ("hint: ... was
		// ignored"): what it would run does not run.
		c.Status, c.Message = Fail, fmt.Sprintf("%s runs git-queen (%s), but %s is not executable, so git does not run it: %s",
			describeOwner(h), h.Via, where, hookMissingMeans[name])
		if h.Managed != "" {
			c.Message += "; chmod +x " + where
			c.Fixable, c.fix = false, func() error { return errors.New(c.Message) } // init fails, saying so
		} else {
			c.Message += "; init installs git-queen's, and keeps it chained"
		}
	case h.RunsQueen:
		c.Status, c.Message = OK, fmt.Sprintf("%s runs git-queen (%s): it %s", describeOwner(h), h.Via, guards)
		if h.Owner == OwnerPreCommit && !r.frameworkAlwaysRuns(h) {
			c.warnOnly("; but without always_run: true in " + h.Via + " the framework runs it only when a file it lists matches, " +
				"and it lists no deleted file: a change that only deletes a held file is not checked")
		}
		if h.refsReadTwice {
			c.warnOnly("; but " + h.Via + " also runs git lfs pre-push, and " + refsOnce + ": whichever runs second reads none, " +
				"so LFS uploads no object, or the check lets every push through; give each its copy: " + SharedRefsLine)
		}
		if h.Owner == OwnerLefthook && name == "pre-push" && !r.lefthookGivesStdin(h, o.Getenv) {
			c.warnOnly("; but lefthook gives a command git's refs only with use_stdin: true, which " + h.Via +
				" does not set: without it the check sees no refs and lets every push through")
		}
	case h.State == HookMissing:
		c.Status, c.Message = Fail, "no "+name+" hook in "+r.shown(filepath.Dir(h.Path))+": "+hookMissingMeans[name]
		if h.Chained != "" {
			c.Message += fmt.Sprintf("; nor does %s, the hook git-queen's chained, run: init puts git-queen's back, which runs it, "+
				"or git queen hooks uninstall puts it back alone", filepath.Base(h.Chained))
		}
	default:
		c.Status, c.Message = Fail, fmt.Sprintf("%s is %s, which does not run git-queen, so %s; init keeps it, chained, and installs git-queen's",
			where, describeOwner(h), hookMissingMeans[name])
	}
	if off := cmp.Or(switchedOff(h, o.Getenv), r.lefthookNotFound(h, o.Getenv), r.lefthookUnloadable(h, o.Getenv), unloadable,
		r.lefthookSkipped(h, o.Getenv)); off != "" && h.RunsQueen && c.Status == OK {
		c.warnOnly("; but " + off)
	}
	if name == "pre-push" && c.Status != Fail && !h.refsReadTwice { // its warning names LFS's pre-push
		r.lfsNote(&c, h)
	}
	if h.globalHooksPath() && c.Status != OK {
		c.Message += fmt.Sprintf(" (core.hooksPath is set in your %s config: %s; init needs --force)", h.HooksPathScope, h.HooksPath)
	} else if h.outside && c.Status != OK {
		c.Message += " (" + h.hooksDirIs(r.shown(filepath.Dir(h.Path))) + ", outside this repository; init needs --force)"
	}
	return c
}

// warnOnly makes c a warning that init leaves as it is, saying why.
func (c *Check) warnOnly(why string) {
	c.Status, c.fix, c.Fixable = Warn, nil, false
	c.Message += why
}

// whatRuns says what git runs for h, where git-queen does not write, in
// the environment getenv reads, and that it does not run git-queen.
func (r *Repo) whatRuns(h *Hook, getenv func(string) string) string {
	var what string
	missing, _ := lefthookConfigMissing(r.TopLevel, getenv)
	switch {
	case h.Owner == OwnerHusky:
		what = "git runs husky's hook, which runs " + h.AddTo
	case h.Owner == OwnerLefthook && missing != "":
		return fmt.Sprintf("git runs lefthook's hook (%s), but LEFTHOOK_CONFIG names %s, which does not exist: "+
			"lefthook reads no configuration and runs nothing", r.shown(h.Path), h.AddTo)
	case h.Owner == OwnerLefthook || h.Owner == OwnerPreCommit:
		what = fmt.Sprintf("git runs %s (%s), set up in %s", ownerNames[h.Owner], r.shown(h.Path), h.AddTo)
		if h.Owner == OwnerLefthook && shimAt(h.Path+".old", h.Name) {
			what += " (lefthook moved git-queen's hook to " + h.Name + ".old, and does not run it)"
		}
	case h.State == HookMissing:
		what = fmt.Sprintf("git looks for %s in %s, a directory of this repository's files; there is none", h.Name, r.shown(filepath.Dir(h.Path)))
	default:
		what = "git runs " + r.shown(h.Path) + ", a file of this repository"
	}
	return what + ", which does not run git-queen"
}

// describeOwner names whose hook h is.
func describeOwner(h *Hook) string {
	if h.Owner == OwnerOther && h.Managed != "" {
		return "a hook of this repository's files"
	}
	return ownerNames[h.Owner]
}

// lfsNote adds to the pre-push check what runs Git LFS's pre-push in a
// repository that keeps LFS objects, and LFS's hooks that are missing.
func (r *Repo) lfsNote(c *Check, h *Hook) {
	switch h.LFS {
	case "chained":
		c.Message += "; LFS's pre-push runs as the chained hook"
	case OwnerQueen:
		c.Message += "; this repository keeps Git LFS objects, and the hook runs `git lfs pre-push` itself, as LFS's would"
	case "itself":
		c.Message += "; it runs Git LFS's pre-push"
	case "none":
		c.warnOnly("; but this repository keeps Git LFS objects, and nothing runs `git lfs pre-push`, " + h.AddTo +
			" included: a push leaves them behind; put in its place: " + SharedRefsLine)
		return
	default:
		return
	}
	if h.Owner != OwnerQueen || h.Managed != "" {
		return
	}
	missing := missingLFSHooks(filepath.Dir(h.Path))
	if len(missing) == 0 {
		return
	}
	c.Message += "; LFS's " + strings.Join(missing, ", ") + " hooks are missing (git lfs install stops at this pre-push)"
	if _, err := r.LookPath("git-lfs"); err != nil {
		c.Message += ": install git-lfs, then git queen hooks install"
		c.fix, c.Fixable = nil, false
	} else {
		c.Message += ": git queen hooks install has git-lfs install them"
	}
	if c.Status == OK {
		c.Status = Warn
	}
}

// checkHookSpeed says whether the hook reads the staged changes itself or
// asks git, and why: not a fault, since git's answer is the same, but the
// reason a hook takes a few milliseconds more.
func (r *Repo) checkHookSpeed() Check {
	if !r.HasCommit() {
		return ok("hook-speed", "no commit yet on this branch: until the first, the pre-commit hook asks git diff --cached for the staged changes (a few ms more)")
	}
	if inProcess, why := r.StagedInProcess(); !inProcess {
		return ok("hook-speed", "the hook asks git diff --cached for the staged changes (%s), a few ms more per commit", why)
	}
	return ok("hook-speed", "the hook reads the staged changes from the index itself")
}

// chainedRuns says what becomes of the hook git-queen's chains at path:
// the shim runs it only when it is executable (as git ran the hook before
// only then), so one that is not is kept as inert as it was, and said so.
func (r *Repo) chainedRuns(path string) string {
	name := filepath.Base(path)
	info, err := os.Stat(path)
	if err == nil && info.Mode()&0o111 != 0 {
		return "; then it runs " + name + ", the hook that was there before"
	} else if link, lerr := os.Readlink(path); errors.Is(err, os.ErrNotExist) && lerr == nil {
		return fmt.Sprintf("; %s, the hook that was there before, is a link to %s, which does not exist: "+
			"it runs once that does (git did not run it either)", name, link)
	}
	return fmt.Sprintf("; %s, the hook that was there before, is not executable, so it does not run (nor did git run it); "+
		"chmod +x %s to have it run", name, r.shown(path))
}

// frameworkAlwaysRuns says whether the pre-commit framework's hook h runs
// git-queen whatever the files: the configuration h.Via says, or h.Via is
// git-queen's own hook kept as NAME.legacy, which the framework always
// runs; or the framework refuses the file, and runs no hook
// (frameworkUnloadable says so).
func (r *Repo) frameworkAlwaysRuns(h *Hook) bool {
	if !slices.Contains(preCommitConfigs, h.Via) || r.frameworkUnloadable(h) != "" {
		return true
	}
	return frameworkAlwaysRunsQueen(r.frameworkParse(h.Via), h.Name)
}

// huskyToCome is husky's hook of git-queen's hook h's name where husky has
// not run yet (a fresh clone: .husky/ is there, core.hooksPath is not):
// once it runs, git runs husky's hooks and not h, so its script must run
// git-queen (the hook's Instruction says how). nil when husky has run, is
// not used, or its script runs git-queen already.
func (r *Repo) huskyToCome(h *Hook) *Hook {
	if h.HooksPath != "" {
		return nil
	}
	if info, err := os.Stat(filepath.Join(r.TopLevel, ".husky")); err != nil || !info.IsDir() {
		return nil
	}
	script := filepath.Join(r.TopLevel, ".husky", h.Name)
	text, err := readRepoFile(script)
	if tooLarge(err) || err == nil && callsQueen(text, h.Name) {
		return nil // one larger than doctor reads, it cannot judge (as lefthookToCome)
	}
	husky := &Hook{Name: h.Name, Owner: OwnerHusky, AddTo: r.shown(script)}
	husky.lfsScript(text)
	return husky
}

// lefthookToCome is lefthook's hook of git-queen's hook h's name, set up
// in the first configuration that configures it (AddTo), where none of
// those lefthook reads runs git-queen there and lefthook's hooks are not
// installed yet: lefthook install renames h to NAME.old, which it does
// not run. nil when there is none; Unread is lefthookFiles' remotes, in
// the environment getenv reads.
func (r *Repo) lefthookToCome(h *Hook, getenv func(string) string) (lefthook *Hook) {
	files, remotes, _ := r.lefthookFiles(getenv)
	for _, name := range files {
		settings, configures := r.lefthookTree(name).tree[h.Name]
		if lefthookRunsQueen(settings, h.Name) {
			return nil
		}
		if configures && lefthook == nil {
			lefthook = &Hook{Name: h.Name, Owner: OwnerLefthook, AddTo: name, Unread: remotes}
		}
	}
	return lefthook
}
