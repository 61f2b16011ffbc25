package ledgersync

import (
	"bytes"
	"slices"
	"strconv"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// firsts is what a merge learns of rule parties for the records this
// clone held no version of before it (every record, for a clone joining;
// a record written since a clone last synced, for one that is not). The
// first version it applies names the record's parties, and it applies the
// ledger's chunks in the tree's order, which a pusher chooses: a version
// giving ann's reservation to carl, in a chunk whose path sorts before the
// one that holds ann's first version, was taken as the first and ann's
// set aside. So the merge notes each record some version of which names
// other parties than the one it took; when it took what the ledger's
// history did not bring first (ledger.Precedes), its appends are cut back
// and it runs again, judging those records by the version brought first,
// as a clone that synced all along judged them; a record whose history
// does not say (a version brought in a history of its own, merged in) is
// set aside whole. A merge without such versions costs what it did (a
// sync bringing 100,000 messages: 0.78 s of CPU before and after); one
// that must run again, about twice (300,000 messages: 2.5 s of CPU, 5 s
// with one such version first).
type firsts struct {
	// contested is, by id, the parties hash of the version the merge
	// took as first, for each record another version of which names
	// others.
	contested map[string]uint32
	// logs holds the logs of the contested records: judgeFirsts reads
	// only their chunks.
	logs map[string]bool
	// pinned is, by id, the parties hash of the version of each
	// contested record that the ledger's history brought first.
	pinned map[string]uint32
	// undecided holds the contested records whose history does not say
	// which version came first: every version of theirs is set aside.
	undecided map[string]bool
}

// firstOf is the parties hash a version of id must name: the one the
// ledger's history brought first when known, else held (the version this
// merge applied), for a tie that has a firsts.
func (t *ties) firstOf(id string, held uint32) uint32 {
	if t == nil || t.first == nil {
		return held
	}
	if p, ok := t.first.pinned[id]; ok {
		return p
	}
	return held
}

// undecided says whether the history does not say which of id's versions
// came first (see judgeFirsts).
func (t *ties) undecided(id string) bool {
	return t != nil && t.first != nil && t.first.undecided[id]
}

// contest notes that a version of id names other parties (got) than the
// version the merge judges it by (first).
func (t *ties) contest(id string, first, got uint32) {
	if t == nil || t.first == nil || first == got || first == 0 || got == 0 {
		return
	}
	if t.first.contested == nil {
		t.first.contested, t.first.logs = map[string]uint32{}, map[string]bool{}
	}
	t.first.logs[t.file] = true
	if _, ok := t.first.contested[id]; !ok {
		t.first.contested[id] = first
	}
}

// maxSought is how many contested records judgeFirsts looks for in a
// chunk's bytes before it vets the chunk: past it, it vets every chunk.
const maxSought = 64

// judgeFirsts reads again every version merged brings of the contested
// records (of their logs alone), and pins for each the parties of the one that came first in l's
// history (ledger.Precedes), or marks it undecided when none did: a
// version brought in a history of its own, merged in, or by the commit
// that first brought another (each then precedes the other, and which is
// met first in the tree is the pusher's choice). again says the merge took another for some
// record, or one it must not take. now bounds reservations from the
// future, as vetting does.
func judgeFirsts(l *ledger.Ledger, now time.Time, f *firsts, merged object.ID) (again bool, err error) {
	// The versions of a record that name the same parties are one group.
	type party struct {
		id      string
		parties uint32
	}
	var placed []ledger.Placed
	var groups []party
	groupOf := map[party]int{}
	vet := vetChunk(now)
	if len(f.contested) <= maxSought {
		// A chunk that holds none of the ids as its writer spelled
		// them (a pusher who spells one with escapes hides only their
		// own version) is not vetted.
		var sought [][]byte
		for id := range f.contested {
			sought = append(sought, []byte(strconv.Quote(id)))
		}
		vetAll := vet
		vet = func(c ledger.Chunk) vetting {
			if !slices.ContainsFunc(sought, func(id []byte) bool { return bytes.Contains(c.Data, id) }) {
				return vetting{}
			}
			return vetAll(c)
		}
	}
	for file := range f.logs {
		err = ledger.EachChangeOf(l, file, object.ZeroID, merged, vet, func(c ledger.Chunk, v vetting) error {
			for _, x := range v.valid {
				if _, ok := f.contested[x.id]; !ok || x.parties == 0 {
					continue
				}
				g, ok := groupOf[party{x.id, x.parties}]
				if !ok {
					g = len(groups)
					groupOf[party{x.id, x.parties}] = g
					groups = append(groups, party{x.id, x.parties})
				}
				placed = append(placed, ledger.Placed{Path: c.Path, Line: bytes.Clone(x.line), Group: g})
			}
			return nil
		})
		if err != nil {
			return false, err
		}
	}
	precedes, err := l.Precedes(merged, placed)
	if err != nil {
		return false, err
	}
	// A record's first version is in the group that precedes every other
	// group of the record and is preceded by none; when none does, the
	// history cannot say, and no version of the record is taken.
	f.pinned, f.undecided = map[string]uint32{}, map[string]bool{}
	for p, first := range groups {
		if !slices.ContainsFunc(groups, func(q party) bool {
			return q.id == first.id && q != first && (!precedes(p, groupOf[q]) || precedes(groupOf[q], p))
		}) {
			f.pinned[first.id] = first.parties
		}
	}
	for _, g := range groups {
		if _, ok := f.pinned[g.id]; !ok {
			f.undecided[g.id] = true
		}
	}
	for id, took := range f.contested {
		p, ok := f.pinned[id]
		again = again || f.undecided[id] || ok && p != took
	}
	return again, nil
}
