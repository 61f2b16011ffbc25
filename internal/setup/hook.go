package setup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/hooks"
)

// HookState says what is at a hook's place.
type HookState string

// The states of a hook.
const (
	HookMissing  HookState = "missing"  // no hook
	HookCurrent  HookState = "current"  // ours, this version
	HookOutdated HookState = "outdated" // ours, an earlier version
	HookForeign  HookState = "foreign"  // someone else's
)

// Hook describes one of git-queen's hooks in a repository.
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
}

// HookInfo describes the pre-commit hook (see HookInfoFor).
func (r *Repo) HookInfo() (*Hook, error) { return r.HookInfoFor("pre-commit") }

// HookInfoFor finds the hook name where git will look for it: `git
// rev-parse --git-path hooks`, which follows core.hooksPath (in a linked
// worktree the worktree's own git directory is not where git looks).
func (r *Repo) HookInfoFor(name string) (*Hook, error) {
	dir, err := r.git("rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return nil, err
	}
	h := &Hook{Name: name, Path: filepath.Join(dir, name)}
	if out, err := r.git("config", "--show-scope", "--get", "core.hooksPath"); err == nil {
		h.HooksPathScope, h.HooksPath, _ = strings.Cut(out, "\t")
	}
	data, err := os.ReadFile(h.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		h.State = HookMissing
	case err != nil:
		return nil, fmt.Errorf("read the %s hook: %w", name, err)
	case bytes.Equal(data, hooks.Shim(name)):
		h.State = HookCurrent
	case bytes.Contains(data, []byte(hooks.Marker(name))):
		h.State = HookOutdated
	default:
		h.State = HookForeign
	}
	if info, err := os.Stat(h.Path); err == nil {
		h.Executable = info.Mode()&0o111 != 0
	}
	if _, err := os.Stat(h.Path + hooks.ChainedSuffix); err == nil {
		h.Chained = h.Path + hooks.ChainedSuffix
	}
	return h, nil
}

// globalHooksPath reports a core.hooksPath that is not this repository's
// own: installing there would change every repository that uses it.
func (h *Hook) globalHooksPath() bool {
	return h.HooksPathScope == "global" || h.HooksPathScope == "system"
}

// InstallHook installs every hook of hooks.Names (see InstallHookNamed),
// and returns what it did, one line a hook that changed.
func (r *Repo) InstallHook(force bool) (string, error) {
	var did []string
	for _, name := range hooks.Names {
		d, err := r.InstallHookNamed(name, force)
		if err != nil {
			return strings.Join(did, "\n"), err
		}
		if d != "" {
			did = append(did, d)
		}
	}
	return strings.Join(did, "\n"), nil
}

// InstallHookNamed installs one shim: an identical hook is left alone, one
// git-queen wrote earlier is upgraded, and a foreign one is chained
// (renamed, and run by the shim after its own check, so it still runs and
// still blocks). It refuses a global or system core.hooksPath unless
// force. It returns what it did.
func (r *Repo) InstallHookNamed(name string, force bool) (string, error) {
	h, err := r.HookInfoFor(name)
	if err != nil {
		return "", err
	}
	if h.globalHooksPath() && !force {
		return "", fmt.Errorf("core.hooksPath is set in your %s git config (%s): a hook there runs for every repository; "+
			"install anyway with --force, or add `git-queen hook %s` to that hook yourself", h.HooksPathScope, h.HooksPath, name)
	}
	did := ""
	switch h.State {
	case HookCurrent:
		if h.Executable {
			return "", nil
		}
		did = "made the " + name + " hook executable"
	case HookOutdated:
		did = "upgraded the " + name + " hook"
	case HookForeign:
		chained := h.Path + hooks.ChainedSuffix
		if h.Chained != "" {
			return "", fmt.Errorf("%s is not git-queen's, and %s exists too; move one of them away first", h.Path, chained)
		}
		if err := os.Rename(h.Path, chained); err != nil {
			return "", fmt.Errorf("keep the existing hook: %w", err)
		}
		did = fmt.Sprintf("installed the %s hook; the one that was there runs after it (%s)", name, filepath.Base(chained))
	case HookMissing:
		did = "installed the " + name + " hook"
	}
	if err := writeExecutable(h.Path, hooks.Shim(name)); err != nil {
		return "", err
	}
	return did + " in " + filepath.Dir(h.Path), nil
}

// UninstallHook removes every shim of git-queen's and puts back the hooks
// they chained. A foreign hook is left alone.
func (r *Repo) UninstallHook() (string, error) {
	var did []string
	for _, name := range hooks.Names {
		h, err := r.HookInfoFor(name)
		if err != nil {
			return "", err
		}
		switch h.State {
		case HookMissing:
			continue
		case HookForeign:
			if name == "pre-commit" {
				return "", fmt.Errorf("%s was not installed by git-queen; left as it is", h.Path)
			}
			continue
		}
		if err := os.Remove(h.Path); err != nil {
			return "", fmt.Errorf("remove the hook: %w", err)
		}
		if h.Chained != "" {
			if err := os.Rename(h.Chained, h.Path); err != nil {
				return "", fmt.Errorf("restore the chained hook: %w", err)
			}
			did = append(did, "removed git-queen's "+name+" hook and restored the one it chained")
			continue
		}
		did = append(did, "removed git-queen's "+name+" hook")
	}
	return strings.Join(did, "\n"), nil
}

func writeExecutable(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".queen-tmp"
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		return fmt.Errorf("write the hook: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // WriteFile's mode is filtered by the umask
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("install the hook: %w", err)
	}
	return nil
}

func (r *Repo) checkHook(o Options) Check {
	c := Check{Name: "hook", Fixable: true, forInit: !o.NoHooks,
		fix: func() error { _, err := r.InstallHook(o.Force); return err }}
	var installed, problems []string
	worst := OK
	for _, name := range hooks.Names {
		h, err := r.HookInfoFor(name)
		if err != nil {
			return Check{Name: "hook", Status: Fail, Message: err.Error()}
		}
		status, msg := OK, ""
		switch {
		case h.State == HookCurrent && h.Executable:
			msg = name
			if h.Chained != "" {
				msg += " (runs " + filepath.Base(h.Chained) + " after it)"
			}
			installed = append(installed, msg)
			continue
		case h.State == HookCurrent:
			status, msg = Fail, h.Path+" is not executable, so git does not run it"
		case h.State == HookOutdated:
			status, msg = Warn, h.Path+" is an earlier version of git-queen's hook"
		case h.State == HookForeign:
			status, msg = Warn, h.Path+" is another tool's hook; init chains it (it keeps running) and installs git-queen's"
		default:
			status, msg = Fail, "no "+name+" hook in "+filepath.Dir(h.Path)+": "+hookMissingMeans[name]
		}
		if h.globalHooksPath() {
			msg += fmt.Sprintf(" (core.hooksPath is set in your %s config: %s; init needs --force)", h.HooksPathScope, h.HooksPath)
		}
		if status == Fail || worst == OK {
			worst = status
		}
		problems = append(problems, msg)
	}
	if len(problems) == 0 {
		dir, _ := r.git("rev-parse", "--path-format=absolute", "--git-path", "hooks")
		return ok("hook", "the %s hooks are installed in %s", strings.Join(installed, ", "), dir)
	}
	c.Status, c.Message = worst, strings.Join(problems, "; ")
	return c
}

// hookMissingMeans says what a missing hook leaves unguarded.
var hookMissingMeans = map[string]string{
	"pre-commit":       "reserved paths are not protected",
	"pre-merge-commit": "merges git commits without conflicts are not checked against reservations",
	"pre-push":         "cherry-picks, rebases, am and amends can carry reserved paths off the machine",
}

// checkHookSpeed says whether the hook reads the staged changes itself or
// asks git, and why: not a fault, since git's answer is the same, but the
// reason a hook takes a few milliseconds more.
func (r *Repo) checkHookSpeed() Check {
	if inProcess, why := r.StagedInProcess(); !inProcess {
		return ok("hook-speed", "the hook asks git diff --cached for the staged changes (%s), a few ms more per commit", why)
	}
	return ok("hook-speed", "the hook reads the staged changes from the index itself")
}
