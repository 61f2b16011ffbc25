package work

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Pool is the open work read from every source. A beads issue stays in the
// raw form its file holds (slices of the file's bytes, which must outlive
// the pool) until a listing shows it: a tracker of 10,000 issues is
// ranked without decoding the titles of the thousands it does not show.
type Pool struct {
	entries []entry
	// Problems are the lines that could not be read.
	Problems []jsonl.Problem
	shared   map[string]bool // see MarkShared
}

// entry is one piece of open work: a beads issue's raw fields, or an item
// made whole (an st item).
type entry struct {
	id      string
	created []byte // the time's text, as the file has it; empty when absent
	// at is created as an instant (Unix nanoseconds), for ordering;
	// dated says created reads as one.
	at    int64
	dated bool
	// title, kind and assignee are raw JSON values of a beads issue.
	title, kind, assignee []byte
	item                  *Item
	file, status, source  string
	priority, line        int
	waiting               []string
}

// AddItems adds work already made whole (st items).
func (p *Pool) AddItems(items []Item) {
	for i := range items {
		it := &items[i]
		created := []byte(it.CreatedAt)
		at, dated := instant(created)
		p.entries = append(p.entries, entry{id: it.ID, created: created, at: at, dated: dated, item: it, file: it.File, status: it.Status,
			source: it.Source, priority: it.Priority, line: it.Line, waiting: it.WaitingOn})
	}
}

// taken says whether an entry is assigned, here or in beads.
func (e *entry) assigned(taken Taken) bool {
	if taken.Assigned[e.id] != "" {
		return true
	}
	if e.item != nil {
		return e.item.Assignee != ""
	}
	a, ok := jsonline.String(e.assignee)
	return ok && a != ""
}

// Item is the entry made whole, its fields decoded.
func (e *entry) Item() Item {
	if e.item != nil {
		return *e.item
	}
	it := Item{ID: e.id, Source: e.source, File: e.file, Priority: e.priority, Status: e.status, Line: e.line, WaitingOn: e.waiting}
	it.Title, _ = jsonline.String(e.title)
	it.IssueType, _ = jsonline.String(e.kind)
	it.Assignee, _ = jsonline.String(e.assignee)
	it.CreatedAt = string(e.created)
	return it
}

// Ready keeps the open, unblocked work that nobody has taken, in the order
// Sort describes, made whole up to limit items (all when limit <= 0); it
// says how many the limit left out and counts what it left out and why.
// Work blocked and assigned counts as blocked; assigned and reserved, as
// assigned.
func (p *Pool) Ready(taken Taken, limit int) (ready []Item, more int, c Counts) {
	order := make([]int32, 0, len(p.entries))
	for i := range p.entries {
		e := &p.entries[i]
		c.Open++
		switch {
		case len(e.waiting) > 0 || e.status == blockedStatus:
			c.Blocked++
		case e.assigned(taken):
			c.Assigned++
		case taken.Reserved[e.id] != "":
			c.Reserved++
		default:
			order = append(order, int32(i))
		}
	}
	c.Ready = len(order)
	slices.SortFunc(order, func(a, b int32) int { return compareEntries(&p.entries[a], &p.entries[b]) })
	if limit > 0 && len(order) > limit {
		order, more = order[:limit], len(order)-limit
	}
	ready = make([]Item, 0, len(order))
	for _, i := range order {
		ready = append(ready, p.entries[i].Item())
	}
	return ready, more, c
}

// compareEntries is the order work is taken in: priority first (0,
// critical, first), then beads issues before st items of the same
// priority, then beads issues oldest first (created_at, one without it
// last) and st items in stream order (by file, then show order), then by
// id, then by file and line.
func compareEntries(a, b *entry) int {
	if c := cmp.Or(cmp.Compare(a.priority, b.priority), cmp.Compare(sourceRank(a.source), sourceRank(b.source))); c != 0 {
		return c
	}
	var c int
	if a.source == SourceBeads {
		c = compareCreated(a, b)
	} else {
		c = cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	}
	if c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.id, b.id), cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
}

func sourceRank(s string) int {
	if s == SourceBeads {
		return 0
	}
	return 1
}

// compareCreated orders issues by the instant they were created, oldest
// first, with one that has no readable time last. The instant, not the
// text: beads writes each contributor's local offset (-08:00, +11:00, Z
// in one tracker), and text order is then not time order.
func compareCreated(a, b *entry) int {
	switch {
	case !a.dated && !b.dated:
		return 0
	case !a.dated:
		return 1
	case !b.dated:
		return -1
	}
	return cmp.Compare(a.at, b.at)
}

// instant reads an RFC 3339 time (beads' created_at) as Unix nanoseconds;
// false when it is absent or does not read as one.
func instant(text []byte) (int64, bool) {
	if len(text) == 0 {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(text))
	if err != nil {
		return 0, false
	}
	return t.UnixNano(), true
}

// MarkShared notes, as a problem each, the ids under which more than one
// file holds open work of different titles (two st streams that both
// number from st-001, an st item named as another beads issue): an
// assignment names an id, so claiming one takes them all, and the others
// leave every ready list unclaimed. A plan that names its items after the
// issues they track (same id, same title) holds one piece of work twice,
// and is left alone. Shared then says whether id is one of them.
func (p *Pool) MarkShared() {
	first := make(map[string]*entry, len(p.entries))
	p.shared = map[string]bool{}
	for i := range p.entries {
		e := &p.entries[i]
		if f, ok := first[e.id]; !ok {
			first[e.id] = e
		} else if f.file != e.file && !p.shared[e.id] && f.Item().Title != e.Item().Title {
			p.shared[e.id] = true
			p.Problems = append(p.Problems, jsonl.Problem{File: e.file, Line: e.line, Msg: fmt.Sprintf("item %q is open in %s too, and an assignment "+
				"names an id, so claiming either would take both, and ready does not claim it: give one of them another id", e.id, f.file)})
		}
	}
}

// Shared says whether work in more than one file goes by id (MarkShared).
func (p *Pool) Shared(id string) bool { return p.shared[id] }

// Add adds o's work and problems to p: ready unions the pools of several
// sources (the tracker, each stream).
func (p *Pool) Add(o *Pool) {
	if len(p.entries) == 0 {
		p.entries = o.entries
	} else {
		p.entries = append(p.entries, o.entries...)
	}
	p.Problems = append(p.Problems, o.Problems...)
}
