package setup

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Change is one thing init or doctor --fix changed.
type Change struct {
	Name string `json:"name"`
	// Was is what the check found before the fix.
	Was string `json:"was"`
	// Did, when the fix says, is what it did (one line a change).
	Did string `json:"did,omitempty"`
}

// Doctor runs every check; with fix it repairs what init would have set.
func (r *Repo) Doctor(o Options, fix bool) ([]Change, []Check, error) {
	if !fix {
		return nil, r.Checks(o), nil
	}
	return r.Init(o)
}

// Init sets the repository up for git-queen: it fixes what fails among
// the checks init sets up, and returns what it changed (nothing when it
// was set up already) and the checks as they stand after. With a git on
// PATH older than gitrepo.MinimumGit it changes nothing, and says so:
// git-queen cannot work with that git, and init would set up the store
// and half the rest before a fix that needs it failed.
func (r *Repo) Init(o Options) ([]Change, []Check, error) {
	defer r.answering()()
	if git := r.checkGit(); git.Status == Fail {
		return nil, nil, errors.New(git.Message + "; nothing was changed")
	}
	checks := r.Checks(o)
	var changes []Change
	// A fix that fails does not stop the others: init sets up all it can
	// (an identity after a hook it may not write), then says what failed.
	failed := &fixErrors{}
	for i := range checks {
		c := &checks[i]
		if c.Status == OK || c.fix == nil || !c.forInit {
			continue
		}
		was, did := c.Message, c.did
		var elsewhere *ElsewhereError
		if err := c.Fix(); err != nil && !errors.As(err, &elsewhere) {
			failed.add(c.Name, errors.Unwrap(err)) // Fix names the check
			continue
		}
		ch := Change{Name: c.Name, Was: was}
		if did != nil {
			ch.Did = did()
		}
		if ch.Did != "" || c.Status == Fixed {
			changes = append(changes, ch)
		}
	}
	if len(changes) > 0 {
		// Report the state after the fixes, not before.
		after := r.Checks(o)
		for i := range after {
			if after[i].Status == OK && slices.ContainsFunc(changes, func(ch Change) bool { return ch.Name == after[i].Name }) {
				after[i].Status = Fixed
			}
		}
		checks = after
	}
	elsewhere := &ElsewhereError{}
	for _, c := range checks {
		switch {
		case c.Status != Fail || !c.forInit:
		case c.elsewhere != nil:
			elsewhere.Hooks = append(elsewhere.Hooks, c.elsewhere)
		case c.fix != nil && !slices.ContainsFunc(failed.names, func(names []string) bool { return slices.Contains(names, c.Name) }):
			failed.add(c.Name, fmt.Errorf("still failing after the fix: %s", c.Message))
		}
	}
	return changes, checks, failed.with(elsewhere)
}

// fixErrors are the fixes that failed in one run of init or InstallHook, each cause once
// with the checks it failed (three hooks refused for one core.hooksPath
// are one line).
type fixErrors struct {
	names  [][]string
	causes []error
	// elsewhere, said after the causes, are the hooks git runs that
	// git-queen does not write (with).
	elsewhere *ElsewhereError
}

func (f *fixErrors) add(name string, err error) {
	for i, cause := range f.causes {
		if cause.Error() == err.Error() {
			f.names[i] = append(f.names[i], name)
			return
		}
	}
	f.names, f.causes = append(f.names, []string{name}), append(f.causes, err)
}

func (f *fixErrors) Error() string {
	lines := make([]string, len(f.causes))
	for i, cause := range f.causes {
		lines[i] = strings.Join(f.names[i], ", ") + ": " + cause.Error()
	}
	if f.elsewhere != nil {
		lines = append(lines, strings.Join(f.elsewhere.Names(), ", ")+": "+f.elsewhere.Error())
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives errors.Is and errors.As each cause.
func (f *fixErrors) Unwrap() []error { return f.causes }

// with is the error of a run that set up all it could: nil, elsewhere
// alone (the hooks git runs that git-queen does not write), or f, which
// then says elsewhere's too (not unwrapped: a caller takes an
// *ElsewhereError for the only failure).
func (f *fixErrors) with(elsewhere *ElsewhereError) error {
	switch {
	case len(f.names) == 0 && len(elsewhere.Hooks) == 0:
		return nil
	case len(f.names) == 0:
		return elsewhere
	case len(elsewhere.Hooks) > 0:
		f.elsewhere = elsewhere
	}
	return f
}

// Failures are the checks (or hooks) whose fixes failed in err, of Init or
// InstallHook, each with why; not those an *ElsewhereError names.
func Failures(err error) map[string]string {
	f, ok := errors.AsType[*fixErrors](err)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for i, names := range f.names {
		for _, name := range names {
			out[name] = f.causes[i].Error()
		}
	}
	return out
}

// Named are the checks err, of Init or InstallHook, says what to do about:
// those whose fixes failed, the hooks an *ElsewhereError names. A caller
// that says err leaves them out of the checks it says beside it.
func Named(err error) []string {
	if f, ok := errors.AsType[*fixErrors](err); ok {
		return append(slices.Concat(f.names...), f.elsewhere.Names()...)
	}
	e, _ := errors.AsType[*ElsewhereError](err)
	return e.Names()
}
