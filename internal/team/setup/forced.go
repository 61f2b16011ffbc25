package setup

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
)

// forcedWindow is how far back doctor looks for forced changes: as long
// as a reservation can last.
const forcedWindow = records.MaxReservationTTL

// forcedShown is how many of the latest forced changes doctor names.
const forcedShown = 3

// checkForced lists the recent forced changes: reservations and
// assignments one droid changed against their holder with --force, and
// grants made over other droids' reservations. Each holder was told by
// message; this makes the changes visible to everyone who runs doctor.
func (r *Repo) checkForced() Check {
	s := r.liveStore()
	now := s.Now()
	changes, err := forcedChanges(&reservations.Store{S: s}, &assignments.Store{S: s}, now.Add(-forcedWindow))
	if err != nil {
		return Check{Name: "forced", Status: Warn, Message: "could not list forced changes: " + err.Error()}
	}
	if len(changes) == 0 {
		return ok("forced", "no forced changes in the last %s", records.ShortDuration(forcedWindow))
	}
	latest := make([]string, 0, forcedShown)
	for _, c := range changes[:min(len(changes), forcedShown)] {
		latest = append(latest, c.String()+" "+records.Relative(now, c.At))
	}
	return Check{Name: "forced", Status: Warn, Message: fmt.Sprintf(
		"%d forced changes in the last %s (each holder was told by message); latest: %s; see git queen reservations --all and git queen assignments --all",
		len(changes), records.ShortDuration(forcedWindow), strings.Join(latest, "; "))}
}

// forcedChanges lists the forced changes to reservations and assignments
// written at since or later, newest first.
func forcedChanges(rs *reservations.Store, as *assignments.Store, since time.Time) ([]records.ForcedChange, error) {
	list, err := rs.ForcedSince(since)
	if err != nil {
		return nil, err
	}
	more, err := as.ForcedSince(since)
	if err != nil {
		return nil, err
	}
	list = append(list, more...)
	records.SortForced(list)
	return list, nil
}
