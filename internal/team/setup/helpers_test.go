package setup

// HookInfo describes the pre-commit hook (see HookInfoFor).
func (r *Repo) HookInfo() (*Hook, error) { return r.HookInfoFor("pre-commit", nil) }
