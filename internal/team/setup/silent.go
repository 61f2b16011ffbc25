package setup

import (
	"fmt"
	"time"

	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/format/records"
)

// silentShown is how many silent droids doctor names.
const silentShown = 5

// checkSilent lists the droids not seen for longer than the team's
// threshold (queen.toml [roster] silent_after): droids that may have died
// holding reservations or claims, which others may now take with
// reserve --steal and claim --steal.
func (r *Repo) checkSilent() Check {
	cfg, err := roster.ReadConfig(r.BeadsDir)
	var after time.Duration
	if err == nil {
		after, err = cfg.SilentAfter()
	}
	if err != nil {
		return Check{Name: "silent", Status: Warn, Message: err.Error()}
	}
	s := r.liveStore()
	if r.Now != nil {
		s.Clock = r.Now
	}
	now := s.Now()
	list, err := (&roster.Store{S: s}).List(now, nil)
	if err != nil {
		return Check{Name: "silent", Status: Warn, Message: "could not list the droids: " + err.Error()}
	}
	silent := roster.Silent(list, now, after)
	if len(silent) == 0 {
		return ok("silent", "no droid silent for longer than %s (queen.toml [roster] silent_after)", records.ShortDuration(after))
	}
	names := make([]string, 0, silentShown)
	for _, d := range silent[:min(len(silent), silentShown)] {
		names = append(names, d.Name+" (last seen "+records.Relative(now, *d.Last)+")")
	}
	return Check{Name: "silent", Status: Warn, Message: fmt.Sprintf(
		"%d droid(s) silent for longer than %s: %s; what they hold may be taken with git queen reserve --steal or claim --steal (see git queen droids --silent)",
		len(silent), records.ShortDuration(after), joinShown(names, len(silent), ", ", " "))}
}
