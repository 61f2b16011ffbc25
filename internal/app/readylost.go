package app

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/assignments"
)

// claimLostError is ready --claim's refusal when the items it tried went
// to other droids first: it names the last one's holder, as claim does,
// but not claim's force, which ready has not (a droid taking work from
// the list takes what is free, not what another holds). It unwraps to
// claim's refusal, so it is a conflict (exit 5) as that is.
type claimLostError struct {
	lost *assignments.AlreadyAssignedError
	// tries is how many items it tried before it gave up; 0 when nothing
	// else was ready.
	tries int
}

func (e *claimLostError) Error() string { return e.Text().String() }

func (e *claimLostError) Unwrap() error { return e.lost }

// Text is the refusal, naming the calls to make, for a front end to spell.
func (e *claimLostError) Text() wording.Text {
	a := e.lost.Active
	held := wording.Textf("%s went to %s (%s, since %s) first", a.IssueID, a.Droid, a.ID, a.CreatedAt.Format(time.RFC3339))
	if w := e.lost.Withdrawn; w != nil {
		held = wording.Textf("%s: that assignment reached %s first, so this one (%s) was withdrawn", held, e.lost.Remote, w.ID)
	}
	if e.tries > 0 {
		return wording.Textf("%s; gave up after %d tries (other droids are claiming as fast): run %s again", held, e.tries, wording.Run("ready", "claim"))
	}
	return wording.Textf("%s, and nothing else is ready to claim; see %s", held, wording.Run("ready"))
}
