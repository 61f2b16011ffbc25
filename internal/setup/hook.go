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

// HookState says what is at the pre-commit hook's place.
type HookState string

// The states of the pre-commit hook.
const (
	HookMissing  HookState = "missing"  // no hook
	HookCurrent  HookState = "current"  // ours, this version
	HookOutdated HookState = "outdated" // ours, an earlier version
	HookForeign  HookState = "foreign"  // someone else's
)

// Hook describes the pre-commit hook of a repository.
type Hook struct {
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

// HookInfo finds the hook where git will look for it: `git rev-parse
// --git-path hooks`, which follows core.hooksPath (in a linked worktree the
// worktree's own git directory is not where git looks).
func (r *Repo) HookInfo() (*Hook, error) {
	dir, err := r.git("rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return nil, err
	}
	h := &Hook{Path: filepath.Join(dir, "pre-commit")}
	if out, err := r.git("config", "--show-scope", "--get", "core.hooksPath"); err == nil {
		h.HooksPathScope, h.HooksPath, _ = strings.Cut(out, "\t")
	}
	data, err := os.ReadFile(h.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		h.State = HookMissing
	case err != nil:
		return nil, fmt.Errorf("read the pre-commit hook: %w", err)
	case bytes.Equal(data, hooks.PreCommit):
		h.State = HookCurrent
	case bytes.Contains(data, []byte(hooks.Marker)):
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

// InstallHook installs the pre-commit shim: an identical hook is left
// alone, one git-queen wrote earlier is upgraded, and a foreign one is
// chained (renamed, and run by the shim after its own check, so it still
// runs and still blocks). It refuses a global or system core.hooksPath
// unless force. It returns what it did.
func (r *Repo) InstallHook(force bool) (string, error) {
	h, err := r.HookInfo()
	if err != nil {
		return "", err
	}
	if h.globalHooksPath() && !force {
		return "", fmt.Errorf("core.hooksPath is set in your %s git config (%s): a hook there runs for every repository; "+
			"install anyway with --force, or add `git-queen hook pre-commit` to that hook yourself", h.HooksPathScope, h.HooksPath)
	}
	did := ""
	switch h.State {
	case HookCurrent:
		if h.Executable {
			return "", nil
		}
		did = "made the pre-commit hook executable"
	case HookOutdated:
		did = "upgraded the pre-commit hook"
	case HookForeign:
		chained := h.Path + hooks.ChainedSuffix
		if h.Chained != "" {
			return "", fmt.Errorf("%s is not git-queen's, and %s exists too; move one of them away first", h.Path, chained)
		}
		if err := os.Rename(h.Path, chained); err != nil {
			return "", fmt.Errorf("keep the existing hook: %w", err)
		}
		did = fmt.Sprintf("installed the pre-commit hook; the one that was there runs after it (%s)", filepath.Base(chained))
	case HookMissing:
		did = "installed the pre-commit hook"
	}
	if err := writeExecutable(h.Path, hooks.PreCommit); err != nil {
		return "", err
	}
	return did + " in " + filepath.Dir(h.Path), nil
}

// UninstallHook removes the shim if it is git-queen's and puts back the
// hook it chained. A foreign hook is left alone.
func (r *Repo) UninstallHook() (string, error) {
	h, err := r.HookInfo()
	if err != nil {
		return "", err
	}
	switch h.State {
	case HookMissing:
		return "", nil
	case HookForeign:
		return "", fmt.Errorf("%s was not installed by git-queen; left as it is", h.Path)
	}
	if err := os.Remove(h.Path); err != nil {
		return "", fmt.Errorf("remove the hook: %w", err)
	}
	if h.Chained != "" {
		if err := os.Rename(h.Chained, h.Path); err != nil {
			return "", fmt.Errorf("restore the chained hook: %w", err)
		}
		return "removed git-queen's pre-commit hook and restored the one it chained", nil
	}
	return "removed git-queen's pre-commit hook", nil
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
	h, err := r.HookInfo()
	if err != nil {
		return Check{Name: "hook", Status: Fail, Message: err.Error()}
	}
	c := Check{Name: "hook", Fixable: true, forInit: !o.NoHooks,
		fix: func() error { _, err := r.InstallHook(o.Force); return err }}
	switch {
	case h.State == HookCurrent && h.Executable:
		msg := "the pre-commit hook is installed in " + filepath.Dir(h.Path)
		if h.Chained != "" {
			msg += " (and runs " + filepath.Base(h.Chained) + " after it)"
		}
		return ok("hook", "%s", msg)
	case h.State == HookCurrent:
		c.Status, c.Message = Fail, h.Path+" is not executable, so git does not run it"
	case h.State == HookOutdated:
		c.Status, c.Message = Warn, h.Path+" is an earlier version of git-queen's hook"
	case h.State == HookForeign:
		c.Status, c.Message = Warn, h.Path+" is another tool's hook; init chains it (it keeps running) and installs git-queen's"
	default:
		c.Status, c.Message = Fail, "no pre-commit hook in "+filepath.Dir(h.Path)+": reserved paths are not protected"
	}
	if h.globalHooksPath() {
		c.Message += fmt.Sprintf(" (core.hooksPath is set in your %s config: %s; init needs --force)", h.HooksPathScope, h.HooksPath)
	}
	return c
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
