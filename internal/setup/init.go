package setup

import "fmt"

// Change is one thing init or doctor --fix changed.
type Change struct {
	Name string `json:"name"`
	// Was is what the check found before the fix.
	Was string `json:"was"`
}

// Init sets the repository up for git-queen and returns what it changed
// (nothing when it was set up already) and the checks as they stand after.
func (r *Repo) Init(o Options) ([]Change, []Check, error) {
	return r.apply(o, func(c *Check) bool { return c.forInit })
}

// Doctor runs every check; with fix it repairs what init would have set.
func (r *Repo) Doctor(o Options, fix bool) ([]Change, []Check, error) {
	if !fix {
		return nil, r.Checks(o), nil
	}
	return r.apply(o, func(c *Check) bool { return c.forInit })
}

func (r *Repo) apply(o Options, want func(*Check) bool) ([]Change, []Check, error) {
	checks := r.Checks(o)
	var changes []Change
	for i := range checks {
		c := &checks[i]
		if c.Status == OK || c.fix == nil || !want(c) {
			continue
		}
		was := c.Message
		if err := c.Fix(); err != nil {
			return changes, checks, err
		}
		changes = append(changes, Change{Name: c.Name, Was: was})
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
	for _, c := range checks {
		if c.Status == Fail && want(&c) && c.fix != nil {
			return changes, checks, fmt.Errorf("%s: still failing after the fix: %s", c.Name, c.Message)
		}
	}
	return changes, checks, nil
}
