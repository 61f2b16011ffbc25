package setup

import (
	"errors"
	"fmt"
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
// was set up already) and the checks as they stand after.
func (r *Repo) Init(o Options) ([]Change, []Check, error) {
	defer r.answering()()
	checks := r.Checks(o)
	var changes []Change
	for i := range checks {
		c := &checks[i]
		if c.Status == OK || c.fix == nil || !c.forInit {
			continue
		}
		was, did := c.Message, c.did
		var elsewhere *ElsewhereError
		if err := c.Fix(); err != nil && !errors.As(err, &elsewhere) {
			return changes, checks, err
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
			for _, ch := range changes {
				if after[i].Name == ch.Name && after[i].Status == OK {
					after[i].Status = Fixed
				}
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
		case c.fix != nil:
			return changes, checks, fmt.Errorf("%s: still failing after the fix: %s", c.Name, c.Message)
		}
	}
	if len(elsewhere.Hooks) > 0 {
		return changes, checks, elsewhere
	}
	return changes, checks, nil
}
