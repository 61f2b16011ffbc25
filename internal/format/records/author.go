package records

import (
	"cmp"
	"fmt"

	"github.com/git-queen/git-queen/internal/base/wording"
)

// Authorship: every version git-queen writes names the droid that wrote it
// in updated_by. A version without one (written before git-queen recorded
// it, or by QueenBee) counts as written by the record's holder: a
// reservation's droid; an assignment's droid, or its assigned_by for an
// active assignment's first version; a message's sender. The rules a
// version obeys (CheckVersion, rule "authorship"):
//
//   - A reservation version written by another droid than its holder is a
//     forced change (release or renew --holder NAME --force) and says so:
//     forced=true. A sync that withdraws a grant writes the holder's own
//     name: it is the holder's clone acting on its own record.
//   - An assignment version written by another droid than its holder is
//     either the assignment's creation (status active, created_at equal
//     to updated_at, assigned_by equal to updated_by: anyone may assign an
//     issue nobody holds) or a forced change (assign --force, claim
//     --force, unassign --force): forced=true.
//   - A message version is written by its sender (send) or its recipient
//     (read, delete; the sender may delete too). One line does not say
//     which change made it, so the rule is that updated_by, when present,
//     is one of the two.
//
// updated_by is what the writer says, not proof: anyone who can push to the
// team's remote can write any name. The rules make a version that claims
// to be by one droid and changes another's record without saying so
// impossible to pass off as ordinary; signed pushes or protected refs are
// what prove who pushed.

// WrittenBy is the droid that wrote this version: updated_by, else the
// holder.
func (r Reservation) WrittenBy() string {
	return cmp.Or(r.UpdatedBy, r.Droid)
}

// ForcedBy is the droid that changed this reservation against its holder
// ("" when the holder wrote this version).
func (r Reservation) ForcedBy() string {
	if by := r.WrittenBy(); by != r.Droid {
		return by
	}
	return ""
}

// WrittenBy is the droid that wrote this version: updated_by, else the
// holder, or whoever assigned it for its first version.
func (a Assignment) WrittenBy() string {
	switch {
	case a.UpdatedBy != "":
		return a.UpdatedBy
	case a.isCreation() && a.AssignedBy != "":
		return a.AssignedBy
	}
	return a.Droid
}

// ForcedBy is the droid that ended this assignment against its holder ("" when
// no one did).
func (a Assignment) ForcedBy() string {
	if by := a.WrittenBy(); by != a.Droid && !a.isCreation() {
		return by
	}
	return ""
}

func (a Assignment) isCreation() bool {
	return a.Status == AssignmentActive && a.CreatedAt.Equal(a.UpdatedAt)
}

// WrittenBy is the droid that wrote this version: updated_by, else the
// sender.
func (m Message) WrittenBy() string {
	return cmp.Or(m.UpdatedBy, m.From)
}

// checkHolderAuthor is the authorship rule of a reservation or an
// assignment (k): a version another droid than its holder wrote is
// forced, or is the creation of an assignment by whoever assigned it.
func checkHolderAuthor(v *version, k *logKind) *RuleError {
	by, droid := v.str[fUpdatedBy], v.str[fDroid]
	if by == "" || by == droid || v.truth[fForced] {
		return nil
	}
	if k == assignmentKind && v.str[fStatus] == AssignmentActive && v.time[fCreatedAt].Equal(v.time[fUpdatedAt]) {
		if v.str[fAssignedBy] == by {
			return nil
		}
		return v.fail(RuleAuthorship, func() string {
			return fmt.Sprintf("assignment %s was created by %s but says it was assigned by %s",
				v.str[fID], quote(by), quote(v.str[fAssignedBy]))
		})
	}
	return v.fail(RuleAuthorship, func() string {
		return fmt.Sprintf("%s %s of %s was changed by %s without forced=true; only a forced change may touch another droid's %s",
			k.name, v.str[fID], quote(droid), quote(by), k.name)
	})
}

func checkMessageAuthor(v *version) *RuleError {
	by := v.str[fUpdatedBy]
	if by == "" || by == v.str[fFrom] || by == v.str[fTo] {
		return nil
	}
	return v.fail(RuleAuthorship, func() string {
		return fmt.Sprintf("message %s from %s to %s was changed by %s; only its sender or recipient may",
			v.str[fID], quote(v.str[fFrom]), quote(v.str[fTo]), quote(by))
	})
}

// ForceNeededError refuses a change to another droid's reservations or
// assignment that was asked for without --force.
type ForceNeededError struct {
	Verb string // what was asked: "release", "renew", "unassign"
	// What names what would change ("the reservations you named", "the
	// assignment of qb-12"), Kind what it is ("reservations",
	// "assignment"); Many says whether What is plural.
	What, Kind string
	Many       bool
	Holder, By string
}

func (e *ForceNeededError) Error() string { return e.Text().String() }

// Text is the refusal's message, which names the parameters that let the
// change through, for a front end to say in its own words.
func (e *ForceNeededError) Text() wording.Text {
	belong := "belongs"
	if e.Many {
		belong = "belong"
	}
	return wording.Textf("%s %s to %s, not to %s: to %s another droid's %s, add %s (and %s); %s will get a message saying what you did",
		e.What, belong, e.Holder, e.By, e.Verb, e.Kind, wording.Switch("force"), wording.Param("reason"), e.Holder)
}
