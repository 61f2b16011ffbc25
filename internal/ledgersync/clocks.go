package ledgersync

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/workspace"
)

// Every ledger commit carries its writer's clock (the committer time) and
// its clone (the committer email, git-queen+CLONE@host). That is enough to
// bound how far two clones' clocks are apart, without asking the network:
//
//   - a commit cannot have been written after it arrived here, so a
//     commit dated d after this clone fetched it shows its writer's clock
//     at least d ahead of this one's;
//   - a commit cannot have been written before a parent it merged, so a
//     commit of another clone dated d before a parent this clone wrote
//     shows that clone's clock at least d behind this one's.
//
// Both are lower bounds (transfers take time), so they never accuse an
// honest clock; sync warns about each clone past records.MaxClockSkew, and
// when most clones seen in the last day are off in the same direction,
// this clone is the one whose clock is wrong, and it refuses exclusive
// grants until a sync finds it right again.

// clockWindow is how long a reading of another clone's clock counts.
const clockWindow = 24 * time.Hour

// maxClockCommits bounds the commits a round reads for their times.
const maxClockCommits = 256

// peerClock is what the ledger showed of one other clone's clock.
type peerClock struct {
	// Writer is the droid that signed its latest commit seen.
	Writer string `json:"writer"`
	// Ahead and Behind are lower bounds on how far its clock is ahead of
	// or behind this clone's, each with when it was read.
	Ahead    time.Duration `json:"ahead,omitempty"`
	AheadAt  time.Time     `json:"ahead_at,omitzero"`
	Behind   time.Duration `json:"behind,omitempty"`
	BehindAt time.Time     `json:"behind_at,omitzero"`
}

// offset is how far the clone's clock is from this one's by the readings
// still in the window (positive: ahead), and zero within the tolerance.
func (p *peerClock) offset(now time.Time) time.Duration {
	fresh := func(at time.Time) bool { return now.Sub(at) < clockWindow }
	switch {
	case fresh(p.AheadAt) && p.Ahead > records.MaxClockSkew:
		return p.Ahead
	case fresh(p.BehindAt) && p.Behind > records.MaxClockSkew:
		return -p.Behind
	}
	return 0
}

// ClockWarning is another clone whose clock is off against this one's.
type ClockWarning struct {
	Clone  string `json:"clone"`
	Writer string `json:"writer"`
	// Offset is how far its clock is at least ahead of this machine's
	// (negative: behind).
	Offset time.Duration `json:"offset_ns"`
}

func (w ClockWarning) String() string {
	dir, d := "ahead of", w.Offset
	if d < 0 {
		dir, d = "behind", -d
	}
	return fmt.Sprintf("the clock of %s's clone (%s) is at least %s %s this machine's (more than the %s tolerated)",
		w.Writer, w.Clone, records.ShortDuration(d), dir, records.ShortDuration(records.MaxClockSkew))
}

// ClockError refuses an exclusive grant on a clone whose clock most other
// clones' commits show to be off.
type ClockError struct {
	Offset time.Duration // this clock against the others (negative: behind)
	Peers  []ClockWarning
}

func (e *ClockError) Error() string {
	dir, d := "behind", -e.Offset
	if e.Offset > 0 {
		dir, d = "ahead of", e.Offset
	}
	var names []string
	for _, p := range e.Peers {
		names = append(names, p.Writer)
	}
	return fmt.Sprintf("no exclusive reservation was made: this machine's clock is at least %s %s the other clones' (%s), "+
		"more than the %s every clone tolerates, so others would not hold the reservation for as long as it says; "+
		"set the clock right (NTP: timedatectl set-ntp true), then git queen sync and reserve again",
		records.ShortDuration(d), dir, strings.Join(names, ", "), records.ShortDuration(records.MaxClockSkew))
}

// cloneKey is the clone a ledger commit came from, by its committer
// email: git-queen+CLONE@host, or the whole email for one written by an
// older git-queen.
func cloneKey(email string) string {
	local, _, _ := strings.Cut(email, "@")
	if id, ok := strings.CutPrefix(local, "git-queen+"); ok && id != "" {
		return id
	}
	return email
}

// newCloneID names this clone in its commits.
func newCloneID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// readClocks reads the times of the commits new since this clone last saw
// the remote (from the tips it merges back, at most maxClockCommits, none
// older than the window) and notes in st what they show of each other
// clone's clock against now.
func (s *Syncer) readClocks(st *state, tips []plumbing.Hash, known map[plumbing.Hash]bool, now time.Time) {
	me := st.CloneID
	type reading struct {
		writer        string
		ahead, behind time.Duration
		hasAhead      bool
		hasBehind     bool
	}
	readings := map[string]*reading{}
	queue := slices.Clone(tips)
	seen := map[plumbing.Hash]bool{}
	for len(queue) > 0 && len(seen) < maxClockCommits {
		c := queue[0]
		queue = queue[1:]
		if seen[c] || known[c] {
			continue
		}
		seen[c] = true
		sig, parents, err := s.ledger.Committer(c)
		if err != nil || sig.When.IsZero() || now.Sub(sig.When) > clockWindow {
			continue
		}
		clone := cloneKey(sig.Email)
		if clone == me {
			continue // what this clone merged before, it has read before
		}
		r := readings[clone]
		if r == nil {
			r = &reading{writer: sig.Name}
			readings[clone] = r
		}
		if d := sig.When.Sub(now); !r.hasAhead || d > r.ahead {
			r.ahead, r.hasAhead = d, true
		}
		for _, p := range parents {
			psig, _, err := s.ledger.Committer(p)
			if err == nil && cloneKey(psig.Email) == me {
				if d := psig.When.Sub(sig.When); !r.hasBehind || d > r.behind {
					r.behind, r.hasBehind = d, true
				}
			}
		}
		queue = append(queue, parents...)
	}
	for clone, r := range readings {
		if st.Clocks == nil {
			st.Clocks = map[string]*peerClock{}
		}
		p := st.Clocks[clone]
		if p == nil {
			p = &peerClock{}
			st.Clocks[clone] = p
		}
		p.Writer = r.writer
		if r.hasAhead {
			p.Ahead, p.AheadAt = r.ahead, now
		}
		if r.hasBehind {
			p.Behind, p.BehindAt = r.behind, now
		}
		st.changed = true
	}
	for clone, p := range st.Clocks {
		if now.Sub(p.AheadAt) > clockWindow && now.Sub(p.BehindAt) > clockWindow {
			delete(st.Clocks, clone)
			st.changed = true
		}
	}
}

// clockWarnings lists the other clones whose clocks are off, by the
// readings in the window.
func (st *state) clockWarnings(now time.Time) []ClockWarning {
	var out []ClockWarning
	for clone, p := range st.Clocks {
		if off := p.offset(now); off != 0 {
			out = append(out, ClockWarning{Clone: clone, Writer: p.Writer, Offset: off})
		}
	}
	slices.SortFunc(out, func(a, b ClockWarning) int { return strings.Compare(a.Clone, b.Clone) })
	return out
}

// clockError is a ClockError when most clones read in the window are off
// in the same direction (this clock is then the wrong one), else nil.
func (st *state) clockError(now time.Time) *ClockError {
	var ahead, behind []ClockWarning
	seen := 0
	for clone, p := range st.Clocks {
		if now.Sub(p.AheadAt) >= clockWindow && now.Sub(p.BehindAt) >= clockWindow {
			continue
		}
		seen++
		switch off := p.offset(now); {
		case off > 0:
			ahead = append(ahead, ClockWarning{Clone: clone, Writer: p.Writer, Offset: off})
		case off < 0:
			behind = append(behind, ClockWarning{Clone: clone, Writer: p.Writer, Offset: off})
		}
	}
	least := func(ws []ClockWarning, abs func(time.Duration) time.Duration) time.Duration {
		m := abs(ws[0].Offset)
		for _, w := range ws[1:] {
			m = min(m, abs(w.Offset))
		}
		return m
	}
	switch {
	case seen > 0 && 2*len(ahead) > seen:
		// The others are ahead: this clock is behind them.
		return &ClockError{Offset: -least(ahead, func(d time.Duration) time.Duration { return d }), Peers: ahead}
	case seen > 0 && 2*len(behind) > seen:
		return &ClockError{Offset: least(behind, func(d time.Duration) time.Duration { return -d }), Peers: behind}
	}
	return nil
}

// ClockCheck says whether this clone's clock is known to be off (see
// ClockError), by what its syncs read; nil when it is not, or nothing was
// read.
func ClockCheck(ws *workspace.Workspace, now time.Time) error {
	if !ws.Live {
		return nil
	}
	st, err := loadState(ws.Dir)
	if err != nil {
		return nil
	}
	if e := st.clockError(now); e != nil {
		return e
	}
	return nil
}
