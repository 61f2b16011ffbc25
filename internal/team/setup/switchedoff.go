package setup

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// huskyOff matches a line of husky's init.sh that switches husky off.
var huskyOff = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*(export\s+)?HUSKY=["']?0["']?\s*(;|$)`) })

// switchedOff says what in the environment where doctor runs (getenv)
// makes the manager whose hook h is run nothing, git-queen's check
// included: HUSKY=0 (in the environment or husky's init.sh), LEFTHOOK=0,
// the pre-commit framework's SKIP naming a git-queen id. CI images and
// agent sandboxes set them. "" when nothing does, or getenv is nil.
func switchedOff(h *Hook, getenv func(string) string) string {
	if getenv == nil {
		return ""
	}
	switch h.Owner {
	case OwnerHusky:
		if getenv("HUSKY") == "0" {
			return "HUSKY=0 is set here, so husky's hooks run nothing, git-queen's check included"
		}
		config := getenv("XDG_CONFIG_HOME")
		if config == "" && getenv("HOME") != "" {
			config = filepath.Join(getenv("HOME"), ".config")
		}
		init := filepath.Join(config, "husky", "init.sh")
		if text, err := readHead(init); config != "" && err == nil && huskyOff().Match(uncommented(text)) {
			return init + " sets HUSKY=0, so husky's hooks run nothing, git-queen's check included"
		}
	case OwnerLefthook:
		if v := getenv("LEFTHOOK"); v == "0" || v == "false" {
			return "LEFTHOOK=" + v + " is set here, so lefthook's hooks run nothing, git-queen's check included"
		}
	case OwnerPreCommit:
		if !slices.Contains(preCommitConfigs, h.Via) {
			return "" // git-queen's own hook kept as NAME.legacy: SKIP names no legacy hook
		}
		skip := getenv("SKIP")
		for id := range strings.SplitSeq(skip, ",") {
			if slices.Contains(frameworkHookIDs[h.Name], strings.TrimSpace(id)) {
				return "SKIP=" + skip + " is set here, so the framework skips git-queen's check"
			}
		}
	}
	return ""
}
