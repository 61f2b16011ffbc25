package setup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/hooks"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// HookState says what is at a hook's place.
type HookState string

// The states of a hook.
const (
	HookMissing  HookState = "missing"  // no hook
	HookCurrent  HookState = "current"  // ours, this version
	HookOutdated HookState = "outdated" // ours, an earlier version
	HookNewer    HookState = "newer"    // ours, written by a newer git-queen
	HookForeign  HookState = "foreign"  // someone else's
)

// ours says whether the hook is a shim of git-queen's, of any version.
func (s HookState) ours() bool {
	return s == HookCurrent || s == HookOutdated || s == HookNewer
}

// Hook describes what git runs for one of git-queen's hook names, whose it
// is, and whether it runs git-queen's check.
type Hook struct {
	Name  string    `json:"name"`
	Path  string    `json:"path"`
	State HookState `json:"state"`
	// Executable is false for a hook git would not run.
	Executable bool `json:"executable"`
	// Chained is the hook ours replaced and runs, if there is one.
	Chained string `json:"chained,omitempty"`
	// HooksPath is core.hooksPath and where it is set ("global", "local"...),
	// when it is set.
	HooksPath      string `json:"hooks_path,omitempty"`
	HooksPathScope string `json:"hooks_path_scope,omitempty"`
	// outside is true when this repository's own core.hooksPath, or the
	// link its hooks directory is, names a directory outside it (a team's,
	// a dotfiles'): other repositories may run their hooks from it.
	outside bool
	// Owner is whose hook git runs (OwnerQueen, OwnerHusky, ...; "" when
	// there is none), and RunsQueen whether git-queen's check runs in it,
	// through Via (the file or config that calls it) when it is not
	// git-queen's own shim.
	Owner     string `json:"owner,omitempty"`
	RunsQueen bool   `json:"runs_git_queen"`
	Via       string `json:"via,omitempty"`
	// Managed says why git-queen does not write where git looks (a hook
	// manager's, or the repository's own files), and AddTo where
	// git-queen's command goes instead.
	Managed string `json:"managed,omitempty"`
	AddTo   string `json:"add_to,omitempty"`
	// Unread, where git-queen's command was not found in lefthook's
	// configuration, is the file of it that names remotes:, the
	// configurations lefthook fetches and git-queen does not read.
	Unread string `json:"unread,omitempty"`
	// configRefused, for lefthook's hook, is what LEFTHOOK_CONFIG names
	// (AddTo) where lefthook cannot load it (lefthookConfigMissing): no
	// file to add to.
	configRefused string
	// refused says why the pre-commit framework refuses the configuration
	// it reads (frameworkUnloadable), where it does not run git-queen: the
	// hook fails every time, and init and hooks install say so beside what
	// to add.
	refused string
	// tooLarge is the first file of the hook manager's configuration
	// larger than doctor reads (managerConfig), which it did not read.
	tooLarge string
	// LFS, for pre-push in a repository that stores Git LFS objects, says
	// what runs `git lfs pre-push`: "chained" (LFS's hook, after ours),
	// "git-queen" (our shim, since nothing else does), "itself" (the team's
	// script) or "none" (the team's script, where nothing else can).
	LFS string `json:"lfs,omitempty"`
	// scriptLFS, for pre-push, is true where the script git-queen's line
	// goes in (husky's .husky/pre-push, or the hook itself) runs `git lfs
	// pre-push`, and refsReadTwice where it also runs git-queen's check
	// and the two do not each get their copy of git's refs (refsReadTwice).
	scriptLFS, refsReadTwice bool
	// Guards is what the hook guards, in words.
	Guards string `json:"guards"`
	// Error is why git-queen could not read the hook (Hooks), or, after
	// hooks install, install it.
	Error string `json:"error,omitempty"`
}

// Hooks describes each of hooks.Names, in the environment getenv reads
// (see HookInfoFor); one it cannot read says why in its Error.
func (r *Repo) Hooks(getenv func(string) string) []*Hook {
	defer r.answering()()
	var all []*Hook
	for _, name := range hooks.Names {
		h, err := r.HookInfoFor(name, getenv)
		if err != nil {
			h = &Hook{Name: name, Guards: HookGuards[name], Error: err.Error()}
		}
		all = append(all, h)
	}
	return all
}

// HookInfoFor finds the hook name where git will look for it: `git
// rev-parse --git-path hooks`, which follows core.hooksPath (in a linked
// worktree the worktree's own git directory is not where git looks).
// What lefthook's hook runs depends on the environment getenv reads, as
// it does for the hooks git runs there (LEFTHOOK_CONFIG); nil reads none.
func (r *Repo) HookInfoFor(name string, getenv func(string) string) (*Hook, error) {
	h := &Hook{Name: name, Guards: HookGuards[name]}
	cfg := r.ReadConfig()
	h.HooksPath, _ = cfg.Get("core.hooksPath")
	h.HooksPath, h.HooksPathScope = strings.TrimSpace(h.HooksPath), string(cfg.Scope("core.hooksPath"))
	dir, err := r.HooksDir()
	if err != nil && r.hooksPathThroughAFile(h.HooksPath) {
		return nil, hooksDirNotADirectory(dir, h)
	} else if err != nil {
		return nil, err
	}
	h.Path = filepath.Join(dir, name)
	h.outside = !h.globalHooksPath() && !r.holds(dir)
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return nil, hooksDirNotADirectory(dir, h)
	} else if h.HooksPath != "" && r.huskyNotGenerated(dir, err == nil) {
		return nil, huskyNotGeneratedError(h.HooksPath, err == nil)
	}
	data, err := readHead(h.Path)
	_, lerr := os.Lstat(h.Path)
	switch {
	case errors.Is(lerr, os.ErrNotExist):
		h.State = HookMissing
	case errors.Is(err, os.ErrNotExist):
		// A link that leads nowhere yet (into node_modules before npm
		// install): git runs nothing, but it is someone's hook, to chain.
		h.State = HookForeign
	case err != nil:
		return nil, fmt.Errorf("read the %s hook: %w", name, err)
	case bytes.Equal(data, hooks.Shim(name)):
		h.State = HookCurrent
	case bytes.Contains(data, []byte(hooks.Marker(name))) && hooks.Newer(data):
		h.State = HookNewer
	case bytes.Contains(data, []byte(hooks.Marker(name))):
		h.State = HookOutdated
	default:
		h.State = HookForeign
	}
	if info, err := os.Stat(h.Path); err == nil {
		h.Executable = gitRuns(info, data)
	}
	if _, err := os.Lstat(h.Path + hooks.ChainedSuffix); err == nil {
		h.Chained = h.Path + hooks.ChainedSuffix
	}
	r.owner(h, data, getenv)
	if name == "pre-push" && r.KeepsLFSObjects() {
		h.LFS = r.lfsRunner(h)
	}
	return h, nil
}

// gitRuns says whether git runs a hook file: one with an executable bit,
// or, on Windows, where files have none, one that starts with #! (Git for
// Windows' own test).
func gitRuns(info os.FileInfo, head []byte) bool {
	if runtime.GOOS == "windows" {
		return bytes.HasPrefix(head, []byte("#!"))
	}
	return info.Mode()&0o111 != 0
}

// readHead reads a hook, up to 64 KiB: a hook is a short script, and what
// identifies it is at its start. It refuses one that is not a regular
// file, unopened: a link to a named pipe would wait for a writer.
func readHead(path string) ([]byte, error) {
	return regular.Head(path, 64<<10)
}

// shimAt says whether the file at path is git-queen's shim of the hook
// name (kept there by a hook manager that took the hook's place).
func shimAt(path, name string) bool {
	head, err := readHead(path)
	return err == nil && bytes.Contains(head, []byte(hooks.Marker(name)))
}

// ElsewhereError says that git runs a hook git-queen does not write (a
// hook manager's, or one of the repository's own files) and that does not
// run git-queen's check: what to add, and where.
type ElsewhereError struct{ Hooks []*Hook }

func (e *ElsewhereError) Error() string {
	var b strings.Builder
	b.WriteString("git runs hooks that git-queen does not write, and they do not run its check; add it (or use init --no-hooks):")
	for _, h := range e.Hooks {
		b.WriteString("\n  " + h.Instruction())
		if h.refused != "" {
			b.WriteString("; but " + h.refused)
		}
	}
	return b.String()
}

// Names are the names of the hooks e names (none when e is nil).
func (e *ElsewhereError) Names() []string {
	if e == nil {
		return nil
	}
	names := make([]string, len(e.Hooks))
	for i, h := range e.Hooks {
		names[i] = h.Name
	}
	return names
}

// ManagersSection is the heading of README.md's recipes for hook managers,
// which the instructions for their hooks point to.
const ManagersSection = "Beside hook managers, Git LFS and committed hooks"

// Instruction says how to have a hook git-queen does not write run its
// check: the line to add, or the manager's recipe.
func (h *Hook) Instruction() string {
	switch h.Owner {
	case OwnerLefthook:
		if h.configRefused != "" {
			return lefthookConfigDir(h.AddTo, h.configRefused, "its "+h.Name+" hook")
		}
		line := fmt.Sprintf("%s: a %s command that runs `git-queen hook %s` (README: %q)", h.AddTo, h.Name, h.Name, ManagersSection)
		if h.Unread != "" {
			line += "; " + h.Unread + " also names remotes:, configurations lefthook fetches from git repositories, " +
				"which git-queen does not fetch: they were not read, and a git-queen command in one is not seen here"
		}
		return line
	case OwnerPreCommit:
		id := frameworkHookIDs[h.Name][0] // the id that builds git-queen, the one README shows first
		return fmt.Sprintf("%s: the hook id %s, at the %s stage (README: %q)", h.AddTo, id, h.Name, ManagersSection)
	}
	line := h.AddTo + ": " + h.line()
	if h.Owner != OwnerHusky && h.State == HookMissing { // husky runs its scripts with sh; git runs only a program
		line += " (a new file: #!/bin/sh as its first line, and chmod +x " + h.AddTo + ")"
	}
	return line
}

// line is the line that has a script of h's name run git-queen's check
// (TrackedLine), or, where the script runs Git LFS's pre-push or is the one
// place it can run, the line that runs both, each with its copy of git's
// refs.
func (h *Hook) line() string {
	switch {
	case h.scriptLFS:
		return SharedRefsLine + " (in place of its git lfs pre-push line: " + refsOnce + ")"
	case h.LFS == "none":
		return SharedRefsLine + " (" + lfsNone + ")"
	}
	return TrackedLine(h.Name)
}

// InstallHook installs every hook of hooks.Names it can (see
// InstallHookNamed), as init does, and returns what it did, one line a
// hook that changed. Hooks that git runs but git-queen does not write are
// left alone and named in an *ElsewhereError; a hook it cannot install
// does not stop the others, and the error then says each (Failures).
// getenv reads the environment the hooks run in (see HookInfoFor).
func (r *Repo) InstallHook(force bool, getenv func(string) string) (string, error) {
	defer r.answering()()
	var did []string
	failed, elsewhere := &fixErrors{}, &ElsewhereError{}
	for _, name := range hooks.Names {
		d, err := r.InstallHookNamed(name, force, getenv)
		if d != "" {
			did = append(did, d)
		}
		if e, ok := errors.AsType[*ElsewhereError](err); ok {
			elsewhere.Hooks = append(elsewhere.Hooks, e.Hooks...)
		} else if err != nil {
			failed.add(name, err)
		}
	}
	return strings.Join(did, "\n"), failed.with(elsewhere)
}

// InstallHookNamed installs one shim: an identical hook is left alone, one
// git-queen wrote earlier is upgraded, and a foreign one is chained
// (kept as NAME.queen-chained, keepAside, and run by the shim after its
// own check, so it still runs and still blocks). It never writes where a hook manager generates the hooks
// (husky), over a manager's hook (lefthook, the pre-commit framework), or
// into a directory of the repository's own files: it returns an
// *ElsewhereError saying what to add there instead, unless that hook runs
// git-queen's check already. It refuses a global or system core.hooksPath
// unless force. It returns what it did. getenv reads the environment the
// hooks run in (see HookInfoFor).
func (r *Repo) InstallHookNamed(name string, force bool, getenv func(string) string) (string, error) {
	h, err := r.HookInfoFor(name, getenv)
	if err != nil {
		return "", err
	}
	if shared := h.sharedHooksPath(); shared != "" && !force {
		// The line runs git-queen only where init ran: the other
		// repositories using the directory, and machines without
		// git-queen, go on as before.
		return "", fmt.Errorf("%s; install anyway with --force, or add `git-queen hook %s` to that hook yourself, "+
			"as a line the other repositories skip: %s", shared, name, h.line())
	}
	if h.Managed != "" {
		did := ""
		if h.Owner == OwnerHusky && h.State.ours() {
			// An earlier git-queen chained husky's shim, which then looked
			// for .husky/NAME.queen-chained: put husky's back.
			if _, err := r.uninstallOne(h); err != nil {
				return "", err
			}
			did = fmt.Sprintf("took git-queen's %s hook out of husky's directory and put husky's back", name)
		}
		if h.RunsQueen {
			return did, nil
		}
		return did, &ElsewhereError{Hooks: []*Hook{h}}
	}
	did := ""
	switch h.State {
	case HookCurrent:
		if h.Executable {
			return r.lfsBeside(h, "")
		}
		did = "made the " + name + " hook executable"
	case HookNewer:
		did := "left the " + name + " hook, which a newer git-queen wrote, in place (upgrade git-queen here)"
		if !h.Executable {
			if err := os.Chmod(h.Path, 0o755); err != nil {
				return "", err
			}
			did = "made the " + name + " hook, which a newer git-queen wrote, executable, and left it in place (upgrade git-queen here)"
		}
		return did, nil
	case HookOutdated:
		did = "upgraded the " + name + " hook"
	case HookForeign:
		chained := h.Path + hooks.ChainedSuffix
		switch {
		case h.Chained != "" && sameFile(h.Path, chained):
			// Kept aside by an install that stopped before it wrote the
			// shim (killed), or is writing it now: the shim goes in.
		case h.Chained != "":
			return "", fmt.Errorf("%s is not git-queen's, and %s exists too; move one of them away first", h.Path, chained)
		default:
			if err := keepAside(h.Path, chained); err != nil {
				return "", err
			}
		}
		h.Chained = chained
		did = fmt.Sprintf("installed the %s hook; the one that was there runs after it (%s)", name, filepath.Base(chained))
	case HookMissing:
		did = "installed the " + name + " hook"
	}
	if err := writeHook(h.Path, hooks.Shim(name)); err != nil {
		if h.State == HookForeign {
			undoKeepAside(h.Path, h.Chained)
		}
		return "", err
	}
	return r.lfsBeside(h, did+" in "+r.shown(filepath.Dir(h.Path)))
}

// UninstallHook removes every shim of git-queen's and puts back the hooks
// they chained. A foreign hook is left alone, and so is a file of the
// team's that runs git-queen's check, which it names.
func (r *Repo) UninstallHook() (string, error) {
	var did, still []string // still: the team's files that run git-queen's check
	var foreign *Hook       // a pre-commit hook that is not git-queen's and runs none of it
	for _, name := range hooks.Names {
		h, err := r.HookInfoFor(name, nil)
		if err != nil {
			return "", err
		}
		uninstall := r.uninstallOne
		switch h.State {
		case HookMissing:
			if h.Chained != "" {
				// git-queen's shim removed by hand: nothing runs the hook it chained.
				if err := os.Rename(h.Chained, h.Path); err != nil {
					return "", fmt.Errorf("restore the chained hook: %w", err)
				}
				did = append(did, fmt.Sprintf("put back %s as %s (git-queen's %s hook, which chained it, was gone)",
					filepath.Base(h.Chained), name, name))
			}
			continue
		case HookForeign:
			if name == "pre-commit" && h.Owner == OwnerOther && !h.RunsQueen {
				foreign = h
			}
			if h.RunsQueen && h.Via != name+".legacy" && !slices.Contains(still, h.Via) {
				still = append(still, h.Via)
			}
			kept, ok := keptShims[h.Owner]
			if !ok || !shimAt(h.Path+kept.suffix, name) {
				continue
			}
			uninstall = func(h *Hook) (string, error) { return r.uninstallKept(h, kept.suffix, kept.why) }
		}
		d, err := uninstall(h)
		if err != nil {
			return "", err
		}
		did = append(did, d)
	}
	for _, via := range still {
		did = append(did, fmt.Sprintf("left %s as it is: it runs git-queen's check (take git-queen's command out of it)", via))
	}
	if foreign != nil {
		if len(did) == 0 {
			return "", fmt.Errorf("%s was not installed by git-queen; left as it is", foreign.Path)
		}
		did = append(did, fmt.Sprintf("left %s as it is: it is not git-queen's", r.shown(foreign.Path)))
	}
	return strings.Join(did, "\n"), nil
}

// uninstallOne removes git-queen's shim h and puts back the hook it chained.
func (r *Repo) uninstallOne(h *Hook) (string, error) {
	if err := os.Remove(h.Path); err != nil {
		return "", fmt.Errorf("remove the hook: %w", err)
	}
	if h.Chained != "" {
		if err := os.Rename(h.Chained, h.Path); err != nil {
			return "", fmt.Errorf("restore the chained hook: %w", err)
		}
		return "removed git-queen's " + h.Name + " hook and restored the one it chained", nil
	}
	return "removed git-queen's " + h.Name + " hook", nil
}

// keptShims are where a hook manager keeps the hook it took the place of
// (git-queen's shim, when init came first), and what it does with it.
var keptShims = map[string]struct{ suffix, why string }{
	OwnerPreCommit: {".legacy", "the pre-commit framework runs it"},
	OwnerLefthook:  {".old", "lefthook uninstall puts it back"},
}

// uninstallKept removes git-queen's shim where a hook manager kept it
// when it took the hook's place (NAME+suffix), and puts there the hook the
// shim chained, if any: the manager then treats the user's hook as it
// treated git-queen's (the framework runs it; lefthook uninstall puts it
// back), and git-queen's check never comes back.
func (r *Repo) uninstallKept(h *Hook, suffix, why string) (string, error) {
	legacy := h.Path + suffix
	if err := os.Remove(legacy); err != nil {
		return "", fmt.Errorf("remove git-queen's hook from %s: %w", filepath.Base(legacy), err)
	}
	did := fmt.Sprintf("removed git-queen's %s hook from %s (%s)", h.Name, filepath.Base(legacy), why)
	chained := filepath.Join(filepath.Dir(h.Path), h.Name+hooks.ChainedSuffix)
	if _, err := os.Lstat(chained); err != nil {
		return did, nil
	}
	if err := os.Rename(chained, legacy); err != nil {
		return "", fmt.Errorf("restore the chained hook: %w", err)
	}
	return did + " and restored there the one it chained", nil
}

// keepAside gives the hook at path the name chained too, to be chained
// once the shim replaces it at path. A link, not a rename: a rename
// replaces whatever is at chained, and an install running beside this one
// (two inits at once) may have just put the hook there and the shim at
// path, which this one would then take for the hook. Where the file
// system has no links, it renames.
func keepAside(path, chained string) error {
	err := os.Link(path, chained)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s appeared while git-queen was chaining the hook there (another git queen init at the same time?); run it again", chained)
	}
	if err != nil {
		if err := os.Rename(path, chained); err != nil {
			return fmt.Errorf("keep the existing hook: %w", err)
		}
	}
	return nil
}

// undoKeepAside undoes, when the shim could not be written, a keepAside
// that renamed the hook (no links here): it goes back, so that git runs
// it meanwhile. A hook linked to its chained name stays under both, which
// the next install takes as kept aside: removing a name could lose the
// hook to an install running beside this one that found it kept aside.
func undoKeepAside(path, chained string) {
	if _, err := os.Lstat(chained); err != nil {
		return
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		os.Rename(chained, path)
	}
}

// sameFile says whether a and b are names of one file (keepAside's link).
func sameFile(a, b string) bool {
	ai, err := os.Lstat(a)
	if err != nil {
		return false
	}
	bi, err := os.Lstat(b)
	return err == nil && os.SameFile(ai, bi)
}

// writeHook writes a shim (a test makes it fail).
var writeHook = writeExecutable

func writeExecutable(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".queen-tmp-*") // its own, beside another install's
	if err != nil {
		return fmt.Errorf("write the hook: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write the hook: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("install the hook: %w", err)
	}
	return nil
}
