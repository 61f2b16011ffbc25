package setup

// frameworkNewStages are the stage names 3.2.0 brought, the hook types'
// (an earlier framework refuses them), each with the old one it reads as
// it (with a warning that it is deprecated), if any: a hook runs the
// stages of its name and of that one.
var frameworkNewStages = map[string]string{"pre-commit": "commit", "pre-merge-commit": "merge-commit", "pre-push": "push", "pre-rebase": ""}
