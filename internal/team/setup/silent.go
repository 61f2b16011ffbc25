package setup

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// silentShown is how many silent droids doctor names.
const silentShown = 5

// checkConfigKeys names the keys of queen.toml that nothing reads: a
// typo (silentAfter) or a key in another table does nothing, in silence.
func (r *Repo) checkConfigKeys() Check {
	path := filepath.Join(r.BeadsDir, schema.ConfigFile)
	var unknown []roster.UnknownKey
	if cfg, err := roster.ReadConfig(r.BeadsDir); err == nil { // one that does not read: see silent
		unknown = cfg.Unknown()
	}
	if len(unknown) == 0 {
		return ok("config", "git-queen reads every key of %s", r.shown(path))
	}
	keys := make([]string, len(unknown))
	for i, u := range unknown {
		u.File = r.shown(u.File)
		keys[i] = u.String()
	}
	return Check{Name: "config", Status: Warn, Message: fmt.Sprintf("%s of %s nothing reads (a typo, or a key in another table): %s",
		plural(len(keys), "key", "keys"), r.shown(path), strings.Join(keys, "; "))}
}

// checkSilent lists the droids not seen for longer than the team's
// threshold (queen.toml [roster] silent_after) that still hold something:
// droids that may have died holding reservations or claims, which others
// may now take with reserve --steal and claim --steal. A silent droid that
// holds nothing is named in an ok line: it blocks no one, and a warning
// for every droid that finished its work (or a quiet night) would never
// go away.
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
	held, err := holdings(s, now)
	if err != nil {
		return Check{Name: "silent", Status: Warn, Message: "could not list what the silent droids hold: " + err.Error()}
	}
	var holding, idle []string
	for _, d := range silent {
		name := d.Name + " (last seen " + records.Relative(now, *d.Last)
		if h := held[d.Name]; h != "" {
			holding = append(holding, name+", holds "+h+")")
		} else {
			idle = append(idle, name+")")
		}
	}
	idleLine := ""
	if len(idle) > 0 {
		idleLine = fmt.Sprintf("%s silent for longer than %s, holding nothing: %s",
			plural(len(idle), "droid", "droids"), records.ShortDuration(after), joinShown(idle[:min(len(idle), silentShown)], len(idle), ", ", " "))
	}
	if len(holding) == 0 {
		return ok("silent", "no droid silent for longer than %s holds anything (queen.toml [roster] silent_after); %s", records.ShortDuration(after), idleLine)
	}
	verb := "hold"
	if len(holding) == 1 {
		verb = "holds"
	}
	msg := fmt.Sprintf("%s silent for longer than %s still %s something: %s; it may be taken with git queen reserve --steal or claim --steal (see git queen droids --silent)",
		plural(len(holding), "droid", "droids"), records.ShortDuration(after), verb, joinShown(holding[:min(len(holding), silentShown)], len(holding), ", ", " "))
	if idleLine != "" {
		msg += "; " + idleLine
	}
	return Check{Name: "silent", Status: Warn, Message: msg}
}

// holdings says, for each droid that holds something, what: its active
// reservations and active assignments, counted.
func holdings(s *store.Store, now time.Time) (map[string]string, error) {
	active, err := (&reservations.Store{S: s}).Active(now)
	if err != nil {
		return nil, err
	}
	claims, _, err := (&assignments.Store{S: s}).List(assignments.Filter{})
	if err != nil {
		return nil, err
	}
	reserved, claimed := map[string]int{}, map[string]int{}
	for _, l := range active {
		reserved[l.Droid]++
	}
	for _, a := range claims {
		claimed[a.Droid]++
	}
	held := map[string]string{}
	for droid, n := range reserved {
		held[droid] = plural(n, "pattern", "patterns")
	}
	for droid, n := range claimed {
		if held[droid] != "" {
			held[droid] += " and "
		}
		held[droid] += plural(n, "issue", "issues")
	}
	return held, nil
}
