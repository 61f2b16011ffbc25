package app

import (
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
)

// ConflictsRequest says whose conflicts to list.
type ConflictsRequest struct {
	Mine bool `json:"mine,omitempty" jsonschema:"only the conflicts the calling droid is part of (one of the two reservations, or one of the assignments, is its own)"`
}

// ConflictsResult is the contested reservations and the double
// assignments; Droid names whose they are when the request said Mine.
type ConflictsResult struct {
	Droid             string                    `json:"droid,omitempty"`
	Conflicts         []reservations.Contention `json:"conflicts"`
	DoubleAssignments []assignments.Double      `json:"double_assignments"`
}

// Conflicts lists what one droid has to give way on: two droids' active
// reservations that can match a common path (one of them exclusive), and
// issues assigned more than once. QueenBee's conflicts --mine is Mine.
var Conflicts = UseCase[ConflictsRequest, *ConflictsResult]{Name: "conflicts", run: conflicts}

func conflicts(e *Env, r ConflictsRequest) (*ConflictsResult, error) {
	var me string
	if r.Mine {
		var err error
		if me, err = e.RequireIdentity(); err != nil {
			return nil, err
		}
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	list, err := (&reservations.Store{S: s}).Contentions(e.Now())
	if err != nil {
		return nil, err
	}
	doubles, err := (&assignments.Store{S: s}).Doubles()
	if err != nil {
		return nil, err
	}
	if r.Mine {
		list = slices.DeleteFunc(list, func(c reservations.Contention) bool { return c.A.Droid != me && c.B.Droid != me })
		doubles = slices.DeleteFunc(doubles, func(d assignments.Double) bool {
			return !slices.ContainsFunc(d.Active, func(a records.Assignment) bool { return a.Droid == me })
		})
	}
	return &ConflictsResult{Droid: me, Conflicts: jsonline.NonNil(list), DoubleAssignments: jsonline.NonNil(doubles)}, nil
}
