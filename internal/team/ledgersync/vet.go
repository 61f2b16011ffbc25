package ledgersync

import (
	"bytes"
	"iter"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// vetting is what vetData made of a chunk's lines: the versions that obey
// every rule, each with what pickNewest needs of it, and of the lines that
// break one only a count and the first example a rule: a ledger of
// millions of tiny invalid lines costs its counts, not a struct and a
// message a line (a hostile chunk of 4 MB of "{}" lines took a joining
// clone 250 MB).
type vetting struct {
	valid  []vetted     // in the order of the lines
	broken []ruleBreaks // in the order each rule was first broken
}

// vetted is what pickNewest needs to know of one line that obeys every
// rule: the line, its record id and version time (id is "" for a line
// that is not a version with a time), whether it is a presence record
// (records.IsPresence), and whether it is the newest version of its
// record among the lines vetted with it (top).
type vetted struct {
	line          []byte
	id            string
	at            time.Time
	split         ulidID
	presence, top bool
	parties       uint32 // partiesHash
}

// maxVetRoom is the most versions vetEach makes room for before it reads a
// chunk.
const maxVetRoom = 256

// ruleBreaks counts the lines vetEach found to break one rule, with the
// first one's words and example (exampleOf).
type ruleBreaks struct {
	rule, msg, example string
	n                  int
}

// vetData reads each line of a chunk's bytes (ledger.Chunk.Data) once
// for pickNewest: the part of its work that depends on nothing but the
// lines, which a caller may run on several chunks at once (see
// ledger.EachChangeRead), the choice of each record's newest version
// among them included. When the valid lines are less than half of data,
// they are copied out of it, so that what the vetting keeps of the chunk
// is bounded by what is valid.
func vetData(file string, data []byte, now time.Time) vetting {
	v := vetEach(file, ledger.LinesOf(data), bytes.Count(data, []byte("\n"))+1, now)
	size := 0
	for _, x := range v.valid {
		size += len(x.line)
	}
	if 2*size < len(data) {
		own := make([]byte, 0, size)
		for i, x := range v.valid {
			own = append(own, x.line...)
			v.valid[i].line = own[len(own)-len(x.line):]
		}
	}
	return v
}

// vetEach is vetData for n lines at most, read from any sequence.
func vetEach(file string, lines iter.Seq[[]byte], n int, now time.Time) vetting {
	// Room for a chunk of the size git-queen writes (64 KiB, a few
	// hundred versions), not for every line of a larger one: the lines
	// of a hostile chunk are mostly invalid.
	out := vetting{valid: make([]vetted, 0, min(n, maxVetRoom))}
	versions := newVersionReader()
	for line := range lines {
		// The rules' check, which also reads the id and time of most
		// versions (those with an updated_at).
		checked, rule := records.CheckVersionRule(file, line, now)
		if rule != "" {
			out.broke(file, rule, line, now)
			continue
		}
		x := vetted{line: line, presence: checked.Presence}
		id, at := checked.ID, checked.At
		ok := !at.IsZero()
		if !ok {
			id, at, ok = versions.of(line)
		}
		if ok {
			x.id, x.at, x.split, x.parties = id, at, splitID(id), partiesHash(checked.Parties)
		}
		out.valid = append(out.valid, x)
	}
	if len(out.valid) == 0 {
		out.valid = nil // a chunk read ahead holds nothing of its lines
	}
	out.markTop()
	return out
}

// markTop marks the newest version of each record among v's valid lines
// (top), and only those: after vetEach, or once the valid lines of several
// vettings are put together.
func (v vetting) markTop() {
	top := make(map[string]int, len(v.valid)) // the newest version of each id here
	for i := range v.valid {
		x := &v.valid[i]
		if x.top = false; x.id == "" {
			continue
		}
		b, seen := top[x.id]
		if !seen || x.at.After(v.valid[b].at) || x.at.Equal(v.valid[b].at) && bytes.Compare(x.line, v.valid[b].line) > 0 {
			if seen {
				v.valid[b].top = false
			}
			top[x.id], x.top = i, true
		}
	}
}

// broke counts line, which breaks rule; the words of the first line of
// each rule are asked of records.CheckVersionAt.
func (v *vetting) broke(file, rule string, line []byte, now time.Time) {
	for i := range v.broken {
		if v.broken[i].rule == rule {
			v.broken[i].n++
			return
		}
	}
	b := ruleBreaks{rule: rule, example: exampleOf(line), n: 1}
	if _, e := records.CheckVersionAt(file, line, now); e != nil {
		b.msg = e.Msg
	}
	v.broken = append(v.broken, b)
}

// countBroken adds the rules v found broken to broken (when not nil),
// which keeps the first words and example of each rule it is given.
func (v vetting) countBroken(broken map[string]*ruleCount) {
	if broken == nil {
		return
	}
	for _, b := range v.broken {
		c := broken[b.rule]
		if c == nil {
			c = &ruleCount{msg: b.msg, example: b.example}
			broken[b.rule] = c
		}
		c.n += b.n
	}
}
