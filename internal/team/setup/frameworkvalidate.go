package setup

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// frameworkInstallPython matches the line of the framework's generated
// hook that names the Python it runs the framework with
// (INSTALL_PYTHON=/usr/bin/python3, shell-quoted).
var frameworkInstallPython = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^INSTALL_PYTHON=(.+)$`) })

// frameworkCommand is the framework the generated hook h runs, as it finds
// it: the Python its INSTALL_PYTHON names, when that is executable
// (python -m pre_commit), else the pre-commit on PATH; nil when neither is
// there, and the hook fails every time ("`pre-commit` not found").
func (r *Repo) frameworkCommand(h *Hook) []string {
	script, _ := readHead(h.Path)
	if m := frameworkInstallPython().FindSubmatch(script); m != nil {
		if words := shellWords(string(m[1])); len(words) == 1 {
			if info, err := os.Stat(words[0]); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
				return []string{words[0], "-mpre_commit"}
			}
		}
	}
	if path, err := r.LookPath("pre-commit"); err == nil {
		return []string{path}
	}
	return nil
}

// frameworkRefusal is why the framework h runs refuses its configuration
// file, asked of it once a run (`pre-commit validate-config FILE`), in its
// words (frameworkWhy), or why it does not start (frameworkNotStarting);
// "" when it loads the file, or cannot be run.
func (r *Repo) frameworkRefusal(h *Hook, file string, config frameworkConfig) string {
	command := r.frameworkCommand(h)
	return answer(r, "validate "+file+" "+strings.Join(command, " "), func() string {
		if command == nil {
			return ""
		}
		out, err := r.frameworkRun(command, "validate-config", file)
		if _, ran := err.(*exec.ExitError); !ran {
			return ""
		}
		why := frameworkWhy(string(out), config)
		if why == "" { // it failed before reading the file, as its hook does
			last := strings.TrimSpace(string(out))
			return frameworkNotStarting + cmp.Or(last[strings.LastIndex(last, "\n")+1:], err.Error())
		}
		if stage, ok := strings.CutPrefix(why, "stage "); ok {
			return fmt.Sprintf("the hook runs pre-commit %s, which knows no stage %q: 3.2 brought that name; "+
				"upgrade pre-commit, or write commit, merge-commit and push, which every version reads", r.frameworkVersion(command), stage)
		}
		return why
	})
}

// frameworkNotStarting starts frameworkRefusal's answer when the framework
// failed before it read the file (the last line it printed follows): a
// Python without the pre_commit module ("No module named pre_commit").
const frameworkNotStarting = "not starting: "

// frameworkWhy reads validate-config's output: where ("==> At Hook(id='q')",
// "==> At key: always_run") and what ("=====> Expected bool got str"), as
// "hook q: always_run: expected bool got str"; of a setting given as a
// string where the framework wants another type, with its value (always_run
// is "true"). "stage NAME" for a stage name 3.2 brought, which an earlier
// framework refuses.
func frameworkWhy(out string, config frameworkConfig) string {
	var where, what []string
	var hook *frameworkHook
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		at, isAt := strings.CutPrefix(line, "==> At ")
		switch {
		case strings.HasPrefix(line, "=====> "):
			what = append(what, strings.TrimPrefix(line, "=====> "))
		case len(what) > 0:
			what = append(what, line)
		case !isAt || at == "Config()" || at == "key: repos" || at == "key: hooks":
		case strings.HasPrefix(at, "Repository(repo="):
			where = []string{"repository " + strings.Trim(strings.TrimPrefix(at, "Repository(repo="), "')")}
		case strings.HasPrefix(at, "Hook(id="):
			id := strings.Trim(strings.TrimPrefix(at, "Hook(id="), "')")
			where, hook = []string{"hook " + id}, frameworkFindHook(config, id)
		case strings.HasPrefix(at, "index "):
			n, _ := strconv.Atoi(strings.TrimPrefix(at, "index "))
			where = append(where, fmt.Sprintf("item %d", n+1))
		default:
			where = append(where, strings.TrimPrefix(at, "key: "))
		}
	}
	message := strings.Join(what, " ")
	if _, got, ok := strings.Cut(message, "but got: '"); ok {
		if _, isNew := frameworkNewStages[strings.TrimSuffix(got, "'")]; isNew {
			return "stage " + strings.TrimSuffix(got, "'")
		}
	}
	message = strings.ToLower(message[:min(1, len(message))]) + message[min(1, len(message)):]
	if n := len(where); hook != nil && n > 1 && strings.HasSuffix(message, "got str") {
		if value, ok := hook.settings[where[n-1]]; ok && value.Value != "" {
			where[n-1] += fmt.Sprintf(" is %q", value.Value)
		}
	}
	return strings.Join(append(where, message), ": ")
}

// frameworkFindHook is config's hook of id, nil when it has none.
func frameworkFindHook(config frameworkConfig, id string) *frameworkHook {
	for _, repo := range config.Repos {
		if i := slices.IndexFunc(repo.Hooks, func(h frameworkHook) bool { return h.ID == id }); i >= 0 {
			return &repo.Hooks[i]
		}
	}
	return nil
}

// frameworkWait bounds one question to the framework: doctor must answer
// even when the Python the hook names hangs.
var frameworkWait = 30 * time.Second

// frameworkRun runs the framework command (frameworkCommand) with args at
// the top of the worktree, as its hook does, and returns what it printed.
// A run that outlasts frameworkWait is stopped, and is no answer (an
// error other than *exec.ExitError).
func (r *Repo) frameworkRun(command []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), frameworkWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, command[0], append(command[1:], args...)...)
	cmd.Dir, cmd.WaitDelay = r.TopLevel, time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return out, fmt.Errorf("%s did not answer within %s", command[0], frameworkWait)
	}
	return out, err
}

// frameworkVersion is the version the framework command says it is
// (pre-commit --version: 3.0.4), asked once a run.
func (r *Repo) frameworkVersion(command []string) string {
	return answer(r, "version "+strings.Join(command, " "), func() string {
		out, _ := r.frameworkRun(command, "--version")
		return strings.TrimPrefix(strings.TrimSpace(string(out)), "pre-commit ")
	})
}
