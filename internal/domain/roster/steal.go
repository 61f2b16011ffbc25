package roster

import (
	"os"
	"strconv"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// NotSilentError refuses a steal from a holder seen within the team's
// silence threshold: it may be alive and working.
type NotSilentError struct {
	Holder string
	// What is what would have been stolen ("reservation", "assignment").
	What     string
	LastSeen time.Time
	Now      time.Time
	After    time.Duration
}

func (e *NotSilentError) Error() string { return e.Text().String() }

// Text is the refusal's message, which names a call, for a front end to
// say in its own words.
func (e *NotSilentError) Text() wording.Text {
	from := e.LastSeen.Add(e.After)
	return wording.Textf("nothing was stolen: %s was last seen %s (%s), and a %s is stolen only from a droid silent for longer than %s "+
		"(.beads/queen.toml [roster] silent_after); it may be stolen after %s (in %s) unless %s shows up; "+
		"ask %s first (%s %s %s), or wait",
		e.Holder, records.Relative(e.Now, e.LastSeen), e.LastSeen.UTC().Format(time.RFC3339), e.What, records.ShortDuration(e.After),
		from.UTC().Format(time.RFC3339), records.ShortDuration(from.Sub(e.Now)), e.Holder, e.Holder, wording.Run("msg send"), wording.Param("to"), wording.Value(e.Holder))
}

// SilentCheck is a check for reserve --steal and claim --steal: it allows
// a holder not seen for longer than after (see Droid.Last), as of the
// store's clock when called, and refuses any other with a
// *NotSilentError. held, when the holder's claim was last written, counts
// as a sighting: a droid that never ran a command is not stealable from
// the moment another droid assigned it something. It reads the roster
// inside the caller's lock, after a fetch has brought the remote's
// sightings, and again whenever a log grew since (another fetch, merged),
// so a check made again after a lost race sees a holder that came back
// meanwhile (reservations.Rejudge), while the holders of one steal cost
// one read.
func (s *Store) SilentCheck(after time.Duration, what string) func(holder string, held time.Time) error {
	var list []Droid
	var read string // the logs' sizes when list was read
	var readAt time.Time
	return func(holder string, held time.Time) error {
		now := s.S.Now()
		if sizes := s.logSizes(); list == nil || sizes != read || now.Sub(readAt).Abs() > time.Second {
			var err error
			if list, err = s.List(now, nil); err != nil {
				list = nil
				return err
			}
			read, readAt = sizes, now
		}
		last, ok := Believed(held, now) // a claim written in the far future is no sign of life
		if !ok {
			last = time.Time{}
		}
		for _, d := range list {
			if d.Name == holder && d.Last != nil && d.Last.After(last) {
				last = *d.Last
			}
		}
		if !last.IsZero() && now.Sub(last) <= after {
			return &NotSilentError{Holder: holder, What: what, LastSeen: last, Now: now, After: after}
		}
		return nil
	}
}

// TeamSilentCheck is SilentCheck at the team's silence threshold
// (.beads/queen.toml [roster] silent_after), read at the call: the check
// reserve --steal and claim --steal judge with, and sync when it judges
// again a steal it has not published.
func (s *Store) TeamSilentCheck(what string) (func(holder string, held time.Time) error, error) {
	c, err := ReadConfig(s.S.WS.BeadsDir)
	if err != nil {
		return nil, err
	}
	after, err := c.SilentAfter()
	if err != nil {
		return nil, err
	}
	return s.SilentCheck(after, what), nil
}

// logSizes fingerprints what the roster reads: the size of each log, this
// clone's and the one sync appends to. The logs only grow between
// rewrites, so a roster read at one fingerprint holds until it changes.
func (s *Store) logSizes() string {
	var b []byte
	for _, k := range records.Kinds {
		for _, path := range []string{s.S.Log(k.File).Path, store.ReceivedPath(s.S.WS, k.File)} {
			var n int64 = -1
			if fi, err := os.Stat(path); err == nil {
				n = fi.Size()
			}
			b = strconv.AppendInt(append(b, ' '), n, 10)
		}
	}
	return string(b)
}
