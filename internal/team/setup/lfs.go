package setup

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/git-queen/git-queen/hooks"
)

// Git LFS and git-queen both need pre-push, the one hook git runs before a
// push. git runs one file by that name, and `git lfs install`/`update`
// accept there only LFS's own script, whose first command (`git lfs
// pre-push`) reads all of the refs git gives on stdin: no file can be both
// LFS's and git-queen's. So git-queen's shim runs first, then LFS's
// pre-push with the same refs (LFS's hook, chained; or `git lfs pre-push`
// itself), and LFS's other hooks, which `git lfs install` no longer reaches
// once it stops at pre-push, are installed by git-lfs beside ours
// (lfsBeside).

// lfsHooks are the hooks `git lfs install` writes besides pre-push.
var lfsHooks = []string{"post-checkout", "post-commit", "post-merge"}

// isLFSPrePush says whether a hook runs `git lfs pre-push` (LFS's own
// script, or one that calls it), as the shim decides.
func isLFSPrePush(data []byte) bool {
	return bytes.Contains(data, []byte("lfs pre-push")) || bytes.Contains(data, []byte("lfs push --stdin"))
}

// lfsRunner says what runs `git lfs pre-push` in the pre-push hook h.
func (r *Repo) lfsRunner(h *Hook) string {
	if h.Owner != OwnerQueen {
		if h.scriptLFS {
			return "itself"
		}
		if h.Owner == OwnerHusky || h.Owner == OwnerOther && h.Managed != "" {
			return "none" // the team's script, the one place it can run, does not
		}
		return "" // a manager's: its configuration says
	}
	if h.Chained != "" {
		if data, err := readHead(h.Chained); err == nil && isLFSPrePush(data) {
			return "chained"
		}
	}
	return OwnerQueen
}

// missingLFSHooks lists LFS's hooks (besides pre-push) not in dir.
func missingLFSHooks(dir string) []string {
	return slices.DeleteFunc(slices.Clone(lfsHooks), func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	})
}

// lfsBeside has git-lfs install its hooks beside git-queen's pre-push (h,
// just installed) when the repository keeps LFS objects, or git lfs
// install ran in it (which marks its config with
// lfs.repositoryformatversion, and stops at git-queen's pre-push, saying
// to run git queen hooks install), and some of them are missing: git-queen's shim is set aside while `git lfs update` writes
// LFS's, LFS's pre-push is chained under the shim (or, when another hook is
// chained already, left to the shim, which runs `git lfs pre-push`
// itself), and the shim is put back. It returns did, with a line for what
// it did; when git-lfs fails, the line says so and nothing is lost.
func (r *Repo) lfsBeside(h *Hook, did string) (string, error) {
	if _, marked := r.LocalConfig("lfs.repositoryformatversion"); h.Name != "pre-push" || !marked && !r.KeepsLFSObjects() {
		return did, nil
	}
	dir := filepath.Dir(h.Path)
	missing := missingLFSHooks(dir)
	if len(missing) == 0 {
		return did, nil
	}
	if _, err := r.LookPath("git-lfs"); err != nil {
		return did, nil // doctor says what is missing
	}
	aside := h.Path + ".queen-aside"
	if err := os.Rename(h.Path, aside); err != nil {
		return did, fmt.Errorf("set the pre-push hook aside for git-lfs: %w", err)
	}
	lfsErr := r.UpdateLFSHooks()
	// Whatever git-lfs did, the shim goes back where git looks.
	if data, err := readHead(h.Path); err == nil { // what git-lfs wrote, read as every hook is
		switch {
		case h.Chained == "" && isLFSPrePush(data):
			if err := os.Rename(h.Path, h.Path+hooks.ChainedSuffix); err != nil {
				return did, fmt.Errorf("chain LFS's pre-push hook: %w", err)
			}
		case isLFSPrePush(data):
			os.Remove(h.Path) // the shim runs git lfs pre-push itself
		}
	}
	if err := os.Rename(aside, h.Path); err != nil {
		return did, fmt.Errorf("put git-queen's pre-push hook back: %w", err)
	}
	line := "had git-lfs install its " + strings.Join(missing, ", ") + " hooks beside git-queen's pre-push, which runs LFS's"
	if lfsErr != nil {
		line = "git-lfs could not install its " + strings.Join(missing, ", ") + " hooks (" + oneLine(lfsErr) + "); git-queen's pre-push runs LFS's all the same"
	}
	if did == "" {
		return line, nil
	}
	return did + "\n" + line, nil
}

// A script of the team's (husky's .husky/pre-push, a hook of the
// repository's files) can run both `git lfs pre-push` and git-queen's
// check. git gives the pre-push hook the refs on stdin once, and each
// reads them all: the one that runs second reads none, so LFS uploads no
// object or git-queen's check lets every push through, and the push goes
// on without a word. Each needs its own copy (SharedRefsLine).

// SharedRefsLine is the line for a pre-push script that runs Git LFS's
// pre-push too: it reads git's refs once and gives git-queen's check, then
// LFS, each its copy.
const SharedRefsLine = `input=$(cat); if git config merge.queen.driver >/dev/null; then printf '%s\n' "$input" | git-queen hook pre-push "$@" || exit $?; fi; ` +
	`printf '%s\n' "$input" | git lfs pre-push "$@"`

// lfsNone says why SharedRefsLine goes in a team's pre-push script that
// does not run LFS's pre-push.
const lfsNone = "this repository keeps Git LFS objects, and nothing else runs LFS's pre-push"

// refsOnce says why SharedRefsLine gives each command its copy.
const refsOnce = "git gives the hook the refs being pushed on stdin once, and each command reads them all"

// lfsPrePushCall matches a command that runs Git LFS's pre-push.
var lfsPrePushCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`git[- ]lfs\s+(pre-push|push\s+--stdin)`) })

// lfsScript sets h.scriptLFS and h.refsReadTwice from text, the pre-push
// script git-queen's line goes in.
func (h *Hook) lfsScript(text []byte) {
	if h.Name != "pre-push" {
		return
	}
	script := string(uncommented(text))
	h.scriptLFS = lfsPrePushCall().MatchString(script)
	h.refsReadTwice = h.scriptLFS && h.RunsQueen &&
		!(eachFedItsCopy(script, lfsPrePushCall()) && eachFedItsCopy(script, queenCalls()["pre-push"]))
}

// eachFedItsCopy says whether every simple command of script (between the
// separators ; && || and newlines) that runs call reads its input from a
// pipe (printf ... | CMD) or a redirection (CMD < FILE, a here-document)
// rather than from the hook's stdin.
func eachFedItsCopy(script string, call *regexp.Regexp) bool {
	return !slices.ContainsFunc(commandSeparators().Split(script, -1), func(command string) bool {
		at := call.FindStringIndex(command)
		return at != nil && !strings.Contains(command[:at[0]], "|") && !strings.Contains(command[at[1]:], "<")
	})
}

// commandSeparators end a simple command in a shell script.
var commandSeparators = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`;|&&|\|\||\n`) })
