package setup

import (
	"fmt"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// attributesOverridden is what git's attributes make of the logs
// AttributeLines route to the merge driver, once those lines are all
// there: a later line (of .gitattributes, or of a file git reads after
// it) may give the same logs another merge attribute, or a filter, and
// git follows the later line without a word. `git lfs track '*.jsonl'`
// writes such a line. It says what the other lines give, for the first
// pattern they reach, or "" when every pattern keeps merge=queen and no
// filter. What the user wrote is theirs: it is reported, never changed.
func (r *Repo) attributesOverridden() string {
	for _, line := range AttributeLines {
		pattern := strings.Fields(line)[0]
		// A file the pattern matches, from the top of the worktree.
		sample := strings.ReplaceAll(strings.TrimPrefix(pattern, "**/"), "*", "log")
		merge, filter, err := gitrepo.MergeAndFilterOf(r.TopLevel, sample)
		these := "these logs (concurrent appends conflict)"
		if err == nil && merge == "queen" && !gitrepo.AttributeSet(filter) && pattern == ".beads/*.jsonl" {
			// beads' own line names its snapshot (bd init writes
			// `.beads/issues.jsonl merge=beads`).
			for _, name := range []string{".beads/issues.jsonl", ".beads/beads.jsonl"} {
				if merge, filter, err = gitrepo.MergeAndFilterOf(r.TopLevel, name); err != nil || merge != "queen" || gitrepo.AttributeSet(filter) {
					pattern, these = name, "it"
					break
				}
			}
		}
		if err != nil { // of the pattern, or of the file of it that failed
			return fmt.Sprintf("cannot read the attributes git gives %s (%v)", pattern, err)
		}
		if merge == "queen" && !gitrepo.AttributeSet(filter) {
			continue
		}
		var gives, effects []string
		if merge != "queen" {
			gives = append(gives, "merge="+merge)
			effects = append(effects, "git-queen's merge driver does not merge "+these)
		}
		if gitrepo.AttributeSet(filter) {
			gives = append(gives, "filter="+filter)
			effects = append(effects, "git stores them through the "+filter+" filter, which the pre-commit hook refuses (a pointer is no log)")
		}
		advice := "move git-queen's lines after that line, or narrow its pattern"
		if merge == "lfs" || filter == "lfs" {
			advice = "git lfs untrack the pattern that holds them ('*.jsonl'?), or narrow it"
		}
		return fmt.Sprintf("other lines give %s %s: %s; %s", pattern, strings.Join(gives, " "), strings.Join(effects, "; "), advice)
	}
	return ""
}
