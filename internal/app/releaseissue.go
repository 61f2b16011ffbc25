package app

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// issueShape is what a beads or QueenBee issue id looks like (qb-12,
// bd-a1b2, wo-abc123.1): a prefix, a dash, a name; never a glob or a path.
var issueShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*-[A-Za-z0-9]+(\.[A-Za-z0-9]+)*$`)
})

// releasedIssues takes, from release's arguments, the issue ids the droid
// (me: the holder release acts for) is assigned (QueenBee's `release ISSUE`), and returns the rest as
// patterns. An argument that is both an assignment of the droid and one
// of its reservation patterns is ambiguous, and an error names both; an
// argument written as a path (./qb-12) is always a pattern.
func releasedIssues(s *store.Store, me string, args []string) (issues, patterns []string, err error) {
	var mine []records.Assignment
	var held []reservations.Live
	loaded := false
	for _, a := range args {
		// An id starting with "-" (refused now, but an older version
		// took it, and release -- -x is the way to name it) is looked up
		// as well.
		if !issueShape().MatchString(a) && !strings.HasPrefix(a, "-") {
			patterns = append(patterns, strings.TrimPrefix(a, "./"))
			continue
		}
		if !loaded {
			loaded = true
			if mine, _, err = (&assignments.Store{S: s}).List(assignments.Filter{Droid: me}); err != nil {
				return nil, nil, err
			}
			if held, _, err = (&reservations.Store{S: s}).List(reservations.Filter{Droid: me}); err != nil {
				return nil, nil, err
			}
		}
		assigned := slices.ContainsFunc(mine, func(x records.Assignment) bool { return x.IssueID == a })
		// A path reserved before it existed is stored as a/**.
		reserved := slices.ContainsFunc(held, func(r reservations.Live) bool { return r.Pattern == a || r.Pattern == a+"/**" })
		switch {
		case assigned && reserved:
			return nil, nil, usagef("release", "%[1]s is both your assignment of issue %[1]s and your reservation of the path %[1]s: "+
				"say %[2]s %[1]s for the assignment, or %[3]s ./%[1]s for the reservation", a, wording.Run("unassign"), wording.Run("release"))
		case assigned:
			issues = append(issues, a)
		default:
			patterns = append(patterns, a)
		}
	}
	return issues, patterns, nil
}
