package setup

import (
	"fmt"
	"slices"
)

// frameworkOldStages are the stage names the pre-commit framework knew
// before 3.2.0 (Debian 12's is 3.0.4): it refuses any other. 3.2.0 and
// later read them still.
var frameworkOldStages = []string{"commit", "merge-commit", "prepare-commit-msg", "commit-msg", "post-commit", "manual",
	"post-checkout", "push", "post-merge", "post-rewrite"}

// frameworkNewStages are the stage names 3.2.0 brought, the hook types'
// (an earlier framework refuses them), each with the old one it reads as
// it (with a warning that it is deprecated), if any: a hook runs the
// stages of its name and of that one.
var frameworkNewStages = map[string]string{"pre-commit": "commit", "pre-merge-commit": "merge-commit", "pre-push": "push", "pre-rebase": ""}

// frameworkUnknownStage says which stage of config's (default_stages, a
// hook's stages) no version of the framework knows, so that every
// version refuses the file; nil when there is none.
func frameworkUnknownStage(config frameworkConfig) error {
	unknown := func(where string, stages *[]string) error {
		for _, stage := range derefStages(stages) {
			if _, isNew := frameworkNewStages[stage]; !isNew && !slices.Contains(frameworkOldStages, stage) {
				return fmt.Errorf("%s: %q is not a stage the framework knows", where, stage)
			}
		}
		return nil
	}
	err := unknown("default_stages", config.DefaultStages)
	for _, repo := range config.Repos {
		for _, h := range repo.Hooks {
			if err == nil {
				err = unknown("hook "+h.ID+": stages", h.Stages)
			}
		}
	}
	return err
}

// derefStages is the stages stages points to, none where it is nil.
func derefStages(stages *[]string) []string {
	if stages == nil {
		return nil
	}
	return *stages
}
