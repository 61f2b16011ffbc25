package setup

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// Status is the outcome of a check.
type Status string

// The statuses a check can end in. Only Fail makes doctor exit 1.
const (
	OK    Status = "ok"
	Fixed Status = "fixed"
	Warn  Status = "warn"
	Fail  Status = "fail"
)

// Check is one thing git-queen needs of a repository.
type Check struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	// Fixable says whether Fix can repair it.
	Fixable bool `json:"fixable"`
	fix     func() error
	// did, when set, says what the fix did (a hook installed, chained...).
	did func() string
	// forInit marks what `git queen init` sets up (and doctor --fix mends).
	forInit bool
	// elsewhere is a hook git runs that git-queen does not write and that
	// does not run its check: init fails with what to add there.
	elsewhere *Hook
}

// Fix repairs what the check found, if it can, and marks it Fixed.
func (c *Check) Fix() error {
	if c.fix == nil || c.Status == OK {
		return nil
	}
	if err := c.fix(); err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	c.Status, c.fix, c.Fixable = Fixed, nil, false
	return nil
}

func ok(name, format string, args ...any) Check {
	return Check{Name: name, Status: OK, Message: fmt.Sprintf(format, args...)}
}

// Repo is a repository setup works on: a worktree of it, and its store
// directory (which may not exist yet).
type Repo struct {
	*gitrepo.Repo
	// BeadsDir is the worktree's .beads/ (where older setups kept their
	// logs); StoreDir the live store in git's common directory.
	BeadsDir string
	StoreDir string
	// LookPath finds programs; tests replace it.
	LookPath func(string) (string, error)
	// Now is the clock of the checks that judge by time (nil: the
	// machine's).
	Now func() time.Time
	// probe is doctor's one look at the remote, shared by the checks
	// before and after a fix.
	probe *probed
	// answers holds git's answers for one run of the checks, or of the
	// checks, fixes and checks again of init (nil outside them), and the
	// hook managers' configurations parsed (frameworkParse).
	answers map[string]any
}

// answering keeps git's answers for the rest of the run it starts, and
// returns the function that ends it; within a run already started it
// does nothing. What the checks ask git no fix changes (none sets
// core.hooksPath, adds a remote or commits; the one that makes git read
// more, SetIdentity, has them asked again): asked once a run, not once a
// check (the three hooks' checks each asked where hooks go, and init runs
// the checks twice: seven git processes of a join's seventeen).
func (r *Repo) answering() (end func()) {
	if r.answers != nil {
		return func() {}
	}
	r.answers = map[string]any{}
	return func() { r.answers = nil }
}

// forgetAnswers has the rest of the run ask git again: a fix changed
// what git reads (SetIdentity woke a config.worktree).
func (r *Repo) forgetAnswers() { clear(r.answers) }

// answer is git's answer to question, asked once a run (see answering),
// or what else no fix changes.
func answer[T any](r *Repo, question string, ask func() T) T {
	if r.answers == nil {
		return ask()
	}
	if a, ok := r.answers[question].(T); ok {
		return a
	}
	a := ask()
	r.answers[question] = a
	return a
}

type dirAnswer struct {
	dir string
	err error
}

// HooksDir is gitrepo's, asked once a run of the checks.
func (r *Repo) HooksDir() (string, error) {
	a := answer(r, "hooks", func() dirAnswer {
		dir, err := r.Repo.HooksDir()
		return dirAnswer{dir, err}
	})
	return a.dir, a.err
}

// HasRemote is gitrepo's, asked once a run of the checks.
func (r *Repo) HasRemote(name string) bool {
	return answer(r, "remote "+name, func() bool { return r.Repo.HasRemote(name) })
}

// HasCommit is gitrepo's, asked once a run of the checks.
func (r *Repo) HasCommit() bool { return answer(r, "commit", r.Repo.HasCommit) }

// NewRepo describes the worktree containing dir, with its store in .beads/
// at the top level.
func NewRepo(dir string) (*Repo, error) {
	r, err := gitrepo.Discover(dir)
	if err != nil {
		return nil, err
	}
	if r.TopLevel == "" && r.OutsideWorkTree {
		return nil, fmt.Errorf("%s is outside the work tree of the repository %s (GIT_WORK_TREE or core.worktree): run git-queen inside the work tree", dir, r.GitDir)
	}
	if r.TopLevel == "" {
		return nil, fmt.Errorf("%s is a bare repository; run git-queen in a worktree", r.GitDir)
	}
	if err := r.Accepted(); err != nil {
		return nil, fmt.Errorf("git refuses to work in %s, so git-queen changes nothing there: %w", r.TopLevel, err)
	}
	return &Repo{Repo: r, BeadsDir: filepath.Join(r.TopLevel, workspace.DirName), StoreDir: workspace.LiveDir(r),
		LookPath: exec.LookPath}, nil
}

// setting reads one git config value, in any scope; "" when unset.
func (r *Repo) setting(key string) string {
	v, _ := r.ReadConfig().Get(key)
	return strings.TrimSpace(v)
}

// Checks runs every check, in the order doctor prints them.
func (r *Repo) Checks(o Options) []Check {
	defer r.answering()()
	checks := []Check{
		r.checkOnPath(),
		r.checkGit(),
		r.checkLiveStore(o.NamedStore),
		r.checkLegacy(),
		r.checkRemote(o.Remote),
	}
	if name, configured := r.remoteName(o.Remote); o.Probe && name != "" && name == configured && gitrepo.CheckObjectFormat(r.CommonDir) == nil {
		checks = append(checks, r.checkRemoteLedger(o))
	}
	checks = append(checks, r.checkLedgers()...)
	checks = append(checks, r.checkAttributes(), r.checkStreamAttributes(), r.checkDriver())
	checks = append(checks, r.checkHooks(o)...)
	return append(checks,
		r.checkHookSpeed(),
		r.checkGivenIdentity(o),
		r.checkStores(),
		r.checkLinks(),
		r.checkStoreFiles(),
		r.checkLeftovers(),
		r.checkQuarantine(),
		r.checkForced(),
		r.checkDoubleWork(),
		r.checkConfigKeys(),
		r.checkSilent(),
	)
}

// Options are what init and doctor are asked for.
type Options struct {
	// Droid, when set, is stored as this worktree's identity.
	Droid string
	// NoHooks leaves the hooks alone.
	NoHooks bool
	// Force installs the hooks into a global or system core.hooksPath.
	Force bool
	// Remote, when set, is the git remote the live store is shared through.
	Remote string
	// Probe asks the remote whether it serves the ledger (doctor), bounded
	// by Timeout (zero: queen.timeout, else ledgersync.DefaultTimeout).
	Probe   bool
	Timeout time.Duration
	// NamedStore is the plain directory store --beads-dir or BEADS_DIR
	// names where doctor runs ("" for none): git-queen run there, the
	// hooks and the edit guard included, uses it instead of the live store.
	NamedStore string
	// GivenDroid is the droid --droid, QUEEN_DROID or QUEEN_AGENT names
	// where doctor runs, and GivenBy which of them: every command there
	// acts as it, whatever queen.droid says.
	GivenDroid, GivenBy string
	// Getenv reads the environment where doctor runs: a hook manager
	// switched off there (HUSKY=0, LEFTHOOK=0, SKIP) runs no check.
	Getenv func(string) string
}
