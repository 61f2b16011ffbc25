package setup

import (
	"fmt"
	"strings"

	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/format/records"
)

// doublesShown is how many double assignments doctor names.
const doublesShown = 3

// checkDoubleWork reports every issue with more than one active assignment,
// from this clone's records and every other clone's: two droids working on
// one issue without knowing it, which a claim through the remote prevents
// and an --offline claim, a clone without a remote or a hand edit can
// still leave. It names who, which ids, since when, and who gives way.
func (r *Repo) checkDoubleWork() Check {
	s := r.liveStore()
	doubles, err := (&assignments.Store{S: s}).Doubles()
	if err != nil {
		return Check{Name: "assignments", Status: Warn, Message: "could not look for double assignments: " + err.Error()}
	}
	if len(doubles) == 0 {
		return ok("assignments", "no issue has two active assignments")
	}
	now := s.Now()
	shown := make([]string, 0, doublesShown)
	for _, d := range doubles[:min(len(doubles), doublesShown)] {
		holders := make([]string, len(d.Active))
		for i, a := range d.Active {
			holders[i] = fmt.Sprintf("%s (%s, since %s)", a.Droid, a.ID, records.Relative(now, a.CreatedAt))
		}
		shown = append(shown, fmt.Sprintf("%s is assigned to %s; %s", d.IssueID, strings.Join(holders, " and "), d.Fix()))
	}
	return Check{Name: "assignments", Status: Warn, Message: fmt.Sprintf("%d issue(s) assigned more than once: %s; see git queen conflicts",
		len(doubles), joinShown(shown, len(doubles), ". ", "; "))}
}
