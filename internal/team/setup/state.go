package setup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// checkGivenIdentity is the identity check where --droid, QUEEN_DROID or
// QUEEN_AGENT names the droid every command acts as (o.GivenDroid): it
// says so, and what queen.droid it stands in for, unless init is to set
// queen.droid (o.Droid), which checkIdentity checks.
func (r *Repo) checkGivenIdentity(o Options) Check {
	given := strings.TrimSpace(o.GivenDroid)
	if o.Droid != "" || given == "" {
		return r.checkIdentity(o.Droid)
	}
	if err := records.ValidateIdentity(given); err != nil {
		return Check{Name: "identity", Status: Fail, Message: fmt.Sprintf("%s is %q, which every command refuses: %v", o.GivenBy, given, err)}
	}
	c := ok("identity", "this worktree acts as %s (%s)", given, o.GivenBy)
	cfg := r.ReadConfig()
	if current, _ := cfg.Get("queen.droid"); strings.TrimSpace(current) != "" && strings.TrimSpace(current) != given {
		c.Message += fmt.Sprintf(", not as its queen.droid %s (%s config)", strings.TrimSpace(current), cfg.Scope("queen.droid"))
	}
	return c
}

func (r *Repo) checkIdentity(droid string) Check {
	c := Check{Name: "identity"}
	if droid != "" {
		if err := records.ValidateIdentity(droid); err != nil {
			return Check{Name: "identity", Status: Fail, Message: err.Error()}
		}
		c.Fixable, c.forInit = true, true
		var moved []string
		c.fix = func() (err error) { moved, err = r.SetIdentity(droid); return err }
		c.did = func() string {
			if len(moved) == 0 {
				return ""
			}
			return fmt.Sprintf("set up identity (was: this worktree should act as %s); moved %s from the shared config to %s, "+
				"as git sparse-checkout does, so that each worktree has a configuration of its own",
				droid, strings.Join(moved, " and "), filepath.Join(r.CommonDir, "config.worktree"))
		}
	}
	cfg := r.ReadConfig()
	current, _ := cfg.Get("queen.droid")
	current, scope := strings.TrimSpace(current), cfg.Scope("queen.droid")
	switch {
	case droid != "" && current == droid && (scope == "worktree" || scope == "local" && r.sharedIdentity()):
		return ok("identity", "this worktree acts as %s", current)
	case droid != "":
		c.Status, c.Message = Fail, fmt.Sprintf("this worktree should act as %s", droid)
		if current != "" {
			c.Message += fmt.Sprintf(" but acts as %s (%s config)", current, scope)
		}
	case current == "":
		c.Status, c.Message = Warn, "no droid identity for this worktree: run `git queen init --droid NAME` (or set QUEEN_DROID)"
	case records.ValidateIdentity(current) != nil:
		c.Status, c.Message = Fail, fmt.Sprintf("queen.droid (%s config) is %q, which every command refuses: %v; "+
			"set a valid one with `git queen init --droid NAME`", scope, current, records.ValidateIdentity(current))
	case scope != "worktree" && r.worktreeCount() > 1:
		c.Status, c.Message = Warn, fmt.Sprintf("every worktree acts as %s (set in the %s config); give each its own with `git queen init --droid NAME` in it", current, scope)
	default:
		if twin := r.sameIdentityElsewhere(current); twin != "" {
			// git worktree add copies config.worktree (git 2.39 and later),
			// so a new worktree starts as the droid of the one it came from.
			c.Status, c.Message = Warn, fmt.Sprintf("the worktree %s acts as %s too (git copies a worktree's config into worktrees made from it); "+
				"give one of them its own: `git queen init --droid NAME` here, or `git -C %s queen init --droid NAME`", twin, current, wording.ShellWord(twin))
			return c
		}
		return ok("identity", "this worktree acts as %s (%s config)", current, scope)
	}
	return c
}

func (r *Repo) worktreeCount() int {
	list, err := r.Worktrees()
	if err != nil {
		return 1
	}
	return len(list)
}

// sameIdentityElsewhere returns another worktree that acts as droid.
func (r *Repo) sameIdentityElsewhere(droid string) string {
	list, err := r.Worktrees()
	if err != nil {
		return ""
	}
	for _, w := range list {
		// git worktree list names the main worktree of a repository made
		// with --separate-git-dir by its git directory (git 2.39).
		if w.Path == r.TopLevel || filepath.Clean(w.Path) == filepath.Clean(r.GitDir) {
			continue
		}
		if d, _ := gitrepo.ReadConfigIn(w.Path).Get("queen.droid"); strings.TrimSpace(d) == droid {
			return w.Path
		}
	}
	return ""
}

// SetIdentity stores droid as this worktree's identity: `git config
// --worktree queen.droid`, so each worktree of a repository can be its own
// droid. That needs git's worktreeConfig extension, which is turned on
// after core.bare=true and core.worktree (a bare repository with linked
// worktrees; a submodule's git directory) move from the shared config,
// which linked worktrees would then read as theirs, to the main
// worktree's config.worktree, as git's sparse-checkout moves them. A
// submodule's git directory with one worktree keeps the identity in the
// shared config instead. It returns the key=value settings it moved.
func (r *Repo) SetIdentity(droid string) (moved []string, err error) {
	cfg := r.ReadConfig()
	scope := gitrepo.ScopeWorktree
	if r.sharedIdentity() {
		scope = gitrepo.ScopeLocal
	} else if !cfg.Bool("extensions.worktreeConfig") {
		woken := r.HasWorktreeConfigFile()
		bare := map[bool]string{true: "true"}[cfg.BoolIn(gitrepo.ScopeLocal, "core.bare")]
		worktree, _ := cfg.GetIn(gitrepo.ScopeLocal, "core.worktree")
		for _, kv := range [][2]string{{"core.bare", bare}, {"core.worktree", worktree}} {
			if kv[1] == "" {
				continue
			}
			if err := r.MoveToWorktreeConfig(kv[0], kv[1]); err != nil {
				return moved, fmt.Errorf("move %s=%s to the main worktree's config.worktree: %w", kv[0], kv[1], err)
			}
			woken, moved = true, append(moved, kv[0]+"="+kv[1])
		}
		if err := r.SetConfig(gitrepo.ScopeLocal, "extensions.worktreeConfig", "true"); err != nil {
			return moved, err
		}
		if woken {
			r.forgetAnswers() // its core.hooksPath or remotes now count
		}
	}
	if err := r.SetConfig(scope, "queen.droid", droid); err != nil {
		return moved, err
	}
	// git worktree add copies config.worktree into the new worktree; the
	// git directory it was set for tells the copy from the original.
	return moved, r.SetConfig(scope, "queen.droidfor", r.GitDir)
}

// sharedIdentity says whether this worktree's identity goes in the shared
// config: where core.worktree is set there (a submodule's git directory,
// .git/modules/NAME) git-queen may not turn worktreeConfig on, and while
// the repository has this one worktree its shared config is its own. A
// worktree added later finds there the git directory the identity was
// set for (queen.droidfor), not its own, and does not take it.
func (r *Repo) sharedIdentity() bool {
	cfg := r.ReadConfig()
	worktree, _ := cfg.GetIn(gitrepo.ScopeLocal, "core.worktree")
	return !cfg.Bool("extensions.worktreeConfig") && worktree != "" && r.worktreeCount() == 1
}

// storeFiles lists the files of the live store whose names match pattern
// ("*.jsonl": its logs): those this clone wrote, and those sync received.
// Names are matched in a listing of each directory, never by a pattern
// over its path, which may hold glob characters.
func (r *Repo) storeFiles(pattern string) []string {
	var files []string
	for _, dir := range []string{r.StoreDir, filepath.Join(r.StoreDir, store.ReceivedDir)} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if match, _ := filepath.Match(pattern, e.Name()); match && !e.IsDir() {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	return files
}

// checkStore validates one log, mapped and a window at a time when large
// (schema.ValidateLarge: it costs a window and a digest, not its size
// twice). problem is its first problem, in doctor's words; repeat names
// it when its only problems are versions repeated byte for byte in a
// received log (see blankRepeats).
func (r *Repo) checkStore(f string, received bool) (problem, repeat string) {
	data, info, release, err := mapfile.OpenInfo(f, false)
	if err != nil {
		return fmt.Sprintf("%s: %v", r.shown(f), err), ""
	}
	// A problem's words may point into the mapping (schema reads strings
	// in place): it is released once they are copied.
	defer release()
	forget := mapfile.Forget
	if info == nil {
		forget = func([]byte) {} // read into memory, not mapped: nothing to drop
	}
	name := ".beads/" + filepath.Base(f)
	res := schema.ValidateLarge(name, data, schema.Options{Limit: 1}, forget)
	if !res.Valid() && res.Problems[0].Rule == schema.RuleDuplicateLine && received {
		// The copies are harmless; anything else still fails, at its own
		// line. blankRepeats writes: it gets a copy.
		copied, err := os.ReadFile(f)
		if err != nil {
			return fmt.Sprintf("%s: %v", r.shown(f), err), ""
		}
		n := blankRepeats(copied)
		if res = schema.ValidateFile(name, copied, schema.Options{Limit: 1}); res.Valid() {
			return "", fmt.Sprintf("%s (%d repeated lines)", r.shown(f), n)
		}
	}
	if res.Valid() {
		return "", ""
	}
	p := res.Problems[0]
	msg := p.Message
	if p.Field != "" {
		msg = p.Field + ": " + msg
	}
	return fmt.Sprintf("%s:%d: %s", r.shown(f), p.Line, msg), ""
}

func (r *Repo) checkStores() Check {
	files := r.storeFiles("*.jsonl")
	if len(files) == 0 {
		return ok("stores", "no logs yet in %s", r.StoreDir)
	}
	var bad, repeats []string
	received := filepath.Join(r.StoreDir, store.ReceivedDir)
	for _, f := range files {
		problem, repeat := r.checkStore(f, filepath.Dir(f) == received)
		if problem != "" {
			bad = append(bad, problem)
		}
		if repeat != "" {
			repeats = append(repeats, repeat)
		}
	}
	if len(bad) > 0 {
		return Check{Name: "stores", Status: Fail, Message: fmt.Sprintf("%d of %d logs have problems (first: %s); run `git queen validate`",
			len(bad), len(files), bad[0])}
	}
	if len(repeats) > 0 {
		return Check{Name: "stores", Status: Warn, Message: fmt.Sprintf("%d logs readable and valid; versions repeated byte for byte in %s: "+
			"an earlier git-queen applied again a version the ledger carried twice (readers take one copy: nothing is wrong or lost); "+
			"`git queen compact` removes the copies", len(files), strings.Join(repeats, ", "))}
	}
	return ok("stores", "%d logs readable and valid", len(files))
}

// checkLeftovers looks for what a crash can leave: temporary files of an
// interrupted rewrite (removed by the fix), and says whether the
// repository lock is held now. An flock dies with its process, so a held
// lock is a running (perhaps hung) git-queen, never a stale file.
func (r *Repo) checkLeftovers() Check {
	tmps := r.storeFiles(".*.tmp-*")
	lockPath := workspace.LockPath(r.Repo)
	lock := "the repository lock is free"
	if _, err := os.Stat(lockPath); err == nil {
		fl := flock.New(lockPath)
		if got, err := fl.TryLock(); err == nil && !got {
			lock = "the repository lock is held by a running git-queen process (a lock never outlives its process)"
		} else if got {
			_ = fl.Unlock()
		}
	}
	if len(tmps) == 0 {
		return ok("locks", "%s; no leftovers of interrupted rewrites", lock)
	}
	return Check{Name: "locks", Status: Warn, Fixable: true, forInit: true,
		Message: fmt.Sprintf("%s; %d temporary files of interrupted rewrites in %s", lock, len(tmps), r.StoreDir),
		fix: func() error {
			for _, t := range tmps {
				if err := os.Remove(t); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
			return nil
		}}
}

// checkQuarantine reports torn tails that appends set aside. They need a
// person: the file says where each came from.
func (r *Repo) checkQuarantine() Check {
	files := r.storeFiles("*.quarantine")
	if len(files) == 0 {
		return ok("quarantine", "no torn writes set aside")
	}
	n := 0
	for _, f := range files {
		n += quarantinedTails(f)
	}
	return Check{Name: "quarantine", Status: Warn, Message: fmt.Sprintf(
		"%d torn writes set aside in %s (each after a header line saying where it came from); "+
			"recover what you need, then delete the file", n, strings.Join(r.shownAll(files), ", "))}
}

func quarantinedTails(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	rd := jsonline.NewReader(bufio.NewReader(f))
	for {
		l, err := rd.Next()
		if err != nil {
			return n
		}
		// Each torn tail follows a header line jsonl writes: a JSON object
		// with its keys in order, starting with "bytes".
		if bytes.HasPrefix(l.Raw, []byte(`{"bytes":`)) && bytes.Contains(l.Raw, []byte(`"quarantined_at"`)) {
			n++
		}
	}
}

func (r *Repo) shownAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = r.shown(p)
	}
	return out
}
