package assignments

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/format/records"
)

// Double is an issue with more than one active assignment: what two clones
// that assigned it before either had published, an --offline claim not
// synced yet, or a hand edit left behind. All but one have to give way.
type Double struct {
	IssueID string `json:"issue_id"`
	// Active are the issue's active assignments, oldest first.
	Active []records.Assignment `json:"active"`
}

// Doubles lists every issue that has more than one active assignment, in
// any source of the store (this clone's records and every other clone's),
// by issue id.
func (a *Store) Doubles() ([]Double, error) {
	active, _, _, err := a.active(nil)
	if err != nil {
		return nil, err
	}
	byIssue := map[string][]records.Assignment{}
	for _, v := range active {
		byIssue[v.IssueID] = append(byIssue[v.IssueID], v.Assignment)
	}
	var out []Double
	for issue, active := range byIssue {
		if len(active) < 2 {
			continue
		}
		slices.SortFunc(active, func(x, y records.Assignment) int {
			return cmp.Or(x.CreatedAt.Compare(y.CreatedAt), strings.Compare(x.ID, y.ID))
		})
		out = append(out, Double{IssueID: issue, Active: active})
	}
	slices.SortFunc(out, func(x, y Double) int { return strings.Compare(x.IssueID, y.IssueID) })
	return out, nil
}

// Fix says how to end the double assignment: the droids of the later
// assignments give way (each one's unassign ends only its own), unless the
// team agrees that the first one should.
func (d Double) Fix() string {
	first := d.Active[0]
	var later []string
	for _, x := range d.Active[1:] {
		if x.Droid != first.Droid && !slices.Contains(later, x.Droid) {
			later = append(later, x.Droid)
		}
	}
	if len(later) == 0 { // one droid, twice: either of its assignments goes
		return fmt.Sprintf("%s holds it twice: %s runs git queen unassign %s (ends both), then claims it again", first.Droid, first.Droid, d.IssueID)
	}
	runs := later[0] + " runs"
	if len(later) > 1 {
		runs = strings.Join(later, " and ") + " each run"
	}
	return fmt.Sprintf("the later give way: %s git queen unassign %s (which ends only the caller's own), or agree that %s does",
		runs, d.IssueID, first.Droid)
}
