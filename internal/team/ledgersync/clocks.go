package ledgersync

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// Every ledger commit carries its writer's clock (the committer time) and
// its clone (the committer email, git-queen+CLONE@host). That is enough to
// bound how far clones' clocks are apart, without asking the network. With
// off(X) the error of clone X's clock:
//
//   - a commit C of X cannot have been written after this clone fetched it
//     at R (by this clock): off(me) - off(X) <= R - t(C);
//   - a commit C of X cannot have been written before a parent P of Y that
//     it merged: off(X) - off(Y) <= t(C) - t(P).
//
// Each is a bound on a difference of two clocks, an edge of a graph whose
// shortest paths bound every clone against this one, through clones in
// between (carl merged bob's commit, ann merged carl's: bob learns how ann
// stands to him though neither ever merged the other directly). The bounds
// never accuse an honest clock (transfers only loosen them); sync warns
// about each clone past records.MaxClockSkew, and when most clones read in
// the last day are off in the same direction, this clone's clock is the
// wrong one, and it refuses exclusive grants until a sync finds it right.

// clockWindow is how long a reading of the clocks counts.
const clockWindow = 24 * time.Hour

// maxClockCommits bounds the commits a round reads for their times.
const maxClockCommits = 256

// clockEdge is one bound: off(To) - off(From) <= Bound, read At.
type clockEdge struct {
	From  string        `json:"from"`
	To    string        `json:"to"`
	Bound time.Duration `json:"bound_ns"`
	At    time.Time     `json:"at"`
}

// ClockWarning is another clone whose clock is off against this one's.
type ClockWarning struct {
	Clone  string `json:"clone"`
	Writer string `json:"writer"`
	// Offset is how far its clock is at least ahead of this machine's
	// (negative: behind).
	Offset time.Duration `json:"offset_ns"`
	// Cycle, when set, are clones whose commits are dated so that they
	// cannot all be true (see offsets): one of them lies about its clock.
	// Clone and Writer are then the first of them, and Offset is zero.
	Cycle []string `json:"cycle,omitempty"`
}

func (w ClockWarning) String() string {
	if len(w.Cycle) > 0 {
		return fmt.Sprintf("the commits of the clones %s carry dates that cannot all be true "+
			"(around a cycle, each dated before what it came after): at least one of them lies about its clock, "+
			"and their readings of each other are left out", strings.Join(w.Cycle, ", "))
	}
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
	steal  string // the command of a refused steal (claim), or "": a refused grant
}

func (e *ClockError) Error() string { return e.Text().String() }

// Stealing is the error refusing a steal by command (claim), which says
// that nothing was stolen and to run command again, not reserve.
func (e *ClockError) Stealing(command string) *ClockError {
	c := *e
	c.steal = command
	return &c
}

// Text is the error's message, in the words of the front end that shows it.
func (e *ClockError) Text() wording.Text {
	if e.steal != "" {
		return wording.Textf("nothing was stolen: %v", e.Reason())
	}
	return wording.Textf("no exclusive reservation was made: %v", e.Reason())
}

// Reason is what the readings show of this clock and what to do, for the
// messages that are not a refused grant (doctor, a sync's warning). A
// clock that is right has a way on too: commits name their clone, so a
// pusher can make up clones that outnumber the team's, and their readings
// end a day after they were read.
func (e *ClockError) Reason() wording.Text {
	dir, d := "behind", -e.Offset
	if e.Offset > 0 {
		dir, d = "ahead of", e.Offset
	}
	var names []string
	for _, p := range e.Peers {
		names = append(names, p.Writer)
	}
	why := "others would not hold the reservation for as long as it says"
	if e.steal != "" {
		why = "it cannot tell how long a holder has been silent"
	}
	return wording.Textf("this machine's clock is at least %s %s the other clones' (%s), "+
		"more than the %s every clone tolerates, so %s; "+
		"set the clock right (NTP: timedatectl set-ntp true), then %v and %v again; "+
		"if it is right, those clones' commits were dated wrong, and what they showed ends a day after it was read",
		records.ShortDuration(d), dir, strings.Join(names, ", "), records.ShortDuration(records.MaxClockSkew), why, wording.Run("sync"), wording.Run(cmp.Or(e.steal, "reserve")))
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
// older than the window) and notes in st the bounds they give, each pair of
// clones' tightest of this round replacing what an earlier round read.
func (s *Syncer) readClocks(st *state, tips []object.ID, known map[object.ID]bool, now time.Time) {
	me := st.CloneID
	bounds := map[[2]string]time.Duration{}
	bound := func(from, to string, d time.Duration) {
		if from != to {
			tighten(bounds, [2]string{from, to}, d)
		}
	}
	queue := slices.Clone(tips)
	seen := map[object.ID]bool{}
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
		if st.Writers == nil {
			st.Writers = map[string]string{}
		}
		st.Writers[clone] = sig.Name
		bound(clone, me, now.Sub(sig.When)) // off(me) - off(X) <= R - t(C)
		for _, p := range parents {
			if psig, _, err := s.ledger.Committer(p); err == nil && !psig.When.IsZero() {
				bound(cloneKey(psig.Email), clone, sig.When.Sub(psig.When)) // off(X) - off(Y) <= t(C) - t(P)
			}
		}
		queue = append(queue, parents...)
	}
	if len(bounds) > 0 {
		st.ClockEdges = slices.DeleteFunc(st.ClockEdges, func(e clockEdge) bool {
			_, replaced := bounds[[2]string{e.From, e.To}]
			return replaced
		})
		for k, d := range bounds {
			st.ClockEdges = append(st.ClockEdges, clockEdge{From: k[0], To: k[1], Bound: d, At: now})
		}
		sortEdges(st.ClockEdges)
		st.changed = true
	}
	n, writers := len(st.ClockEdges), len(st.Writers)
	st.ClockEdges = slices.DeleteFunc(st.ClockEdges, func(e clockEdge) bool { return now.Sub(e.At) > clockWindow })
	st.keepNewestClocks()
	st.changed = st.changed || n != len(st.ClockEdges) || writers != len(st.Writers)
}

// maxClockEdges bounds the clock readings the state keeps: a team of 30
// clones that all merge each other's commits makes fewer. Each commit
// names a clone of its writer's choosing, so a push of fresh names every
// few seconds added thousands of readings to every sync that read them,
// kept for a day, which every command then loaded (ledger-state.json of
// 12 MB after 20 such syncs, and reservations 1 s instead of 13 ms).
const maxClockEdges = 1024

// keepNewestClocks keeps the maxClockEdges readings read last (of those
// read at one time, the ones that bound another clone against this one
// first, then the first by clone), and the writers of the clones they
// name. A team of 40 clones can read more than maxClockEdges in a day;
// what bounds a clone's clock against this one directly is what the
// clock check reads first, and must not go for a pair of two others.
func (st *state) keepNewestClocks() {
	if len(st.ClockEdges) > maxClockEdges {
		mine := func(e clockEdge) bool { return e.From == st.CloneID || e.To == st.CloneID }
		slices.SortStableFunc(st.ClockEdges, func(a, b clockEdge) int {
			return cmp.Or(b.At.Compare(a.At), cmp.Compare(b2i(mine(b)), b2i(mine(a)))) // newest, then mine, first
		})
		st.ClockEdges = st.ClockEdges[:maxClockEdges]
		sortEdges(st.ClockEdges)
	}
	named := map[string]bool{}
	for _, e := range st.ClockEdges {
		named[e.From], named[e.To] = true, true
	}
	maps.DeleteFunc(st.Writers, func(clone, _ string) bool { return !named[clone] })
}

// sortEdges orders clock readings by their clones, as the state keeps them.
func sortEdges(edges []clockEdge) {
	slices.SortFunc(edges, func(a, b clockEdge) int { return strings.Compare(a.From+" "+a.To, b.From+" "+b.To) })
}

// offsets bounds every clone read in the window against this one: off(X)
// - off(me) is at least lo[X] and at most hi[X] (shortest paths over the
// edges, both ways). Bounds that contradict each other (a cycle that sums
// below zero: times that cannot all be true, as a pusher can date two
// made-up clones' commits) give nothing, and silenced every warning: the
// cycles are left out, and returned by their clones (maxCycles of them). When
// others remain (cycles that shared a clone with one found), each clone is
// bounded by its own readings against this one alone (directBounds), which
// no path through others can contradict.
func (st *state) offsets(now time.Time) (lo, hi map[string]time.Duration, cycles [][]string) {
	const inf = maxBound
	nodes := map[string]bool{st.CloneID: true}
	var edges []clockEdge
	for _, e := range st.ClockEdges {
		if now.Sub(e.At) <= clockWindow {
			e.Bound = max(e.Bound, -inf) // time.Sub's floor, which has no negation
			edges = append(edges, e)
			nodes[e.From], nodes[e.To] = true, true
		}
	}
	var kept []clockEdge
	dropped := map[int]bool{}
	for _, cycle := range negativeCycles(edges) {
		var clones []string
		for _, i := range cycle {
			clones, dropped[i] = append(clones, edges[i].From), true
		}
		if slices.Sort(clones); len(cycles) < maxCycles {
			cycles = append(cycles, clones)
		}
	}
	for i, e := range edges {
		if !dropped[i] {
			kept = append(kept, e)
		}
	}
	edges = kept
	// dist is the shortest paths from one clone (along the edges, or
	// against them), by Bellman-Ford; ok is false on a negative cycle.
	dist := func(from string, reverse bool) (map[string]time.Duration, bool) {
		d := map[string]time.Duration{from: 0}
		for range len(nodes) {
			changed := false
			for _, e := range edges {
				a, b := e.From, e.To
				if reverse {
					a, b = b, a
				}
				if da, ok := d[a]; ok {
					if db, ok := d[b]; !ok || addBounds(da, e.Bound) < db {
						d[b], changed = addBounds(da, e.Bound), true
					}
				}
			}
			if !changed {
				return d, true
			}
		}
		return d, false
	}
	fromMe, ok1 := dist(st.CloneID, false)
	toMe, ok2 := dist(st.CloneID, true)
	if !ok1 || !ok2 {
		fromMe, toMe = directBounds(st.CloneID, edges)
	}
	lo, hi = map[string]time.Duration{}, map[string]time.Duration{}
	for x := range nodes {
		if x == st.CloneID {
			continue
		}
		hi[x], lo[x] = inf, -inf
		if d, ok := fromMe[x]; ok {
			hi[x] = d // off(X) - off(me) <= d
		}
		if d, ok := toMe[x]; ok {
			lo[x] = -d // off(me) - off(X) <= d
		}
	}
	return lo, hi, cycles
}

// negativeCycles returns cycles of edges that sum below zero (by the
// edges' indexes), or none: Bellman-Ford from every clone at once (each
// starts at zero); a clone whose bound still tightens after as many passes
// as there are clones is reached from such a cycle, and following the
// tightening edges back as many steps lands on it. Each clone tightens by
// one edge, so the cycles found are apart. Clones are numbered: a cycle of
// 1,024 readings takes some 1 M steps.
func negativeCycles(edges []clockEdge) [][]int {
	id := map[string]int{}
	number := func(clone string) int {
		if _, ok := id[clone]; !ok {
			id[clone] = len(id)
		}
		return id[clone]
	}
	from, to := make([]int, len(edges)), make([]int, len(edges))
	for i, e := range edges {
		from[i], to[i] = number(e.From), number(e.To)
	}
	d, by := make([]time.Duration, len(id)), make([]int, len(id))
	var last []int // the clones the last pass tightened
	for range len(id) + 1 {
		last = last[:0]
		for i, e := range edges {
			if sum := addBounds(d[from[i]], e.Bound); sum < d[to[i]] {
				d[to[i]], by[to[i]], last = sum, i, append(last, to[i])
			}
		}
		if len(last) == 0 {
			return nil
		}
	}
	var cycles [][]int
	taken := make([]bool, len(id))
	for _, c := range last {
		for range len(id) {
			c = from[by[c]]
		}
		var cycle []int
		for ; !taken[c]; c = from[by[c]] {
			taken[c], cycle = true, append(cycle, by[c])
		}
		if cycle != nil {
			cycles = append(cycles, cycle)
		}
	}
	return cycles
}

// maxBound is the largest bound a sum of readings reaches, either way: a
// commit dated centuries ahead gives one at time.Duration's limit, and sums
// of such wrapped around to nothing, hiding its clone's warning.
const maxBound = time.Duration(1<<63 - 1)

// addBounds is a+b, stopped at ±maxBound.
func addBounds(a, b time.Duration) time.Duration {
	switch s := a + b; {
	case a > 0 && b > 0 && s < 0:
		return maxBound
	case a < 0 && b < 0 && (s >= 0 || s < -maxBound):
		return -maxBound
	default:
		return s
	}
}

// maxCycles bounds the cycles of readings a sync or doctor names.
const maxCycles = 8

// directBounds are the tightest bounds of the edges from this clone (to
// each other one) and to it (from each other one): the shortest paths of
// one edge.
func directBounds(me string, edges []clockEdge) (fromMe, toMe map[string]time.Duration) {
	fromMe, toMe = map[string]time.Duration{}, map[string]time.Duration{}
	for _, e := range edges {
		switch {
		case e.From == me:
			tighten(fromMe, e.To, e.Bound)
		case e.To == me:
			tighten(toMe, e.From, e.Bound)
		}
	}
	return fromMe, toMe
}

// tighten sets m[k] to d unless it holds a smaller bound.
func tighten[K comparable](m map[K]time.Duration, k K, d time.Duration) {
	if old, ok := m[k]; !ok || d < old {
		m[k] = d
	}
}

// clocks reads the clocks by the bounds in the window: the other clones
// whose clocks are off against this one's, and, when most clones read are
// off in the same direction (this clock is then the wrong one), a
// ClockError.
func (st *state) clocks(now time.Time) ([]ClockWarning, *ClockError) {
	lo, hi, cycles := st.offsets(now)
	var warnings, ahead, behind []ClockWarning
	for _, c := range cycles {
		warnings = append(warnings, ClockWarning{Clone: c[0], Writer: st.Writers[c[0]], Cycle: c})
	}
	for clone := range lo {
		w := ClockWarning{Clone: clone, Writer: st.Writers[clone]}
		switch {
		case lo[clone] > records.MaxClockSkew:
			w.Offset = lo[clone]
			ahead = append(ahead, w)
		case hi[clone] < -records.MaxClockSkew:
			w.Offset = hi[clone]
			behind = append(behind, w)
		default:
			continue
		}
		warnings = append(warnings, w)
	}
	slices.SortFunc(warnings, func(a, b ClockWarning) int { return strings.Compare(a.Clone, b.Clone) })
	nearest := func(ws []ClockWarning) time.Duration {
		return slices.MinFunc(ws, func(a, b ClockWarning) int { return cmp.Compare(a.Offset.Abs(), b.Offset.Abs()) }).Offset
	}
	seen := len(lo)
	switch {
	case seen > 0 && 2*len(ahead) > seen:
		// The others are ahead: this clock is behind them.
		return warnings, &ClockError{Offset: -nearest(ahead), Peers: ahead}
	case seen > 0 && 2*len(behind) > seen:
		return warnings, &ClockError{Offset: -nearest(behind), Peers: behind}
	}
	return warnings, nil
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
	if _, e := st.clocks(now); e != nil {
		return e
	}
	return nil
}

// SlowClockError refuses a steal while another clone's clock is known to
// run behind this one's by more than records.MaxClockSkew: a holder there
// dates its sightings and versions that much too early, so it looks
// silent while it works.
type SlowClockError struct{ Peers []ClockWarning }

func (e *SlowClockError) Error() string { return e.Text().String() }

// Text is the refusal, in the words of the front end that shows it.
func (e *SlowClockError) Text() wording.Text {
	var names []string
	for _, p := range e.Peers {
		names = append(names, fmt.Sprintf("%s's clone %s, by at least %s", p.Writer, p.Clone, records.ShortDuration(-p.Offset)))
	}
	return wording.Textf("nothing was stolen: a clock runs behind this machine's (%s), so the droids there date what they do "+
		"too early and look silent while they work; once that clock is right (NTP: timedatectl set-ntp true) and has synced, "+
		"steal again, or take over now with %s, which tells the holder", strings.Join(names, "; "), wording.Param("force"))
}

// slowClocks is the steal check that refuses whatever check allows while
// the clocks read show another clone's behind this one's; nil stays nil.
func slowClocks(check func(string, time.Time) error, clocks []ClockWarning) func(string, time.Time) error {
	var slow []ClockWarning
	for _, w := range clocks {
		if w.Offset < 0 && len(w.Cycle) == 0 {
			slow = append(slow, w)
		}
	}
	if check == nil || slow == nil {
		return check
	}
	return func(holder string, held time.Time) error {
		return cmp.Or(check(holder, held), error(&SlowClockError{slow}))
	}
}
