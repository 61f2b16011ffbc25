package store

import (
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// unite is the union of the sources' selections (lists, in the order of
// the sources): for each id, the version records.Newer prefers, and of
// copies of one version the first source's. Only the smaller lists go in
// a map; the longest is walked once, in its order: a clone's own log is
// usually small beside the one sync received.
func unite(lists [][]jsonl.Entry) []jsonl.Entry {
	longest := 0
	for i, l := range lists {
		if len(l) > len(lists[longest]) {
			longest = i
		}
	}
	type pick struct {
		e      jsonl.Entry
		source int
	}
	others := map[string]pick{}
	for i, l := range lists {
		if i == longest {
			continue
		}
		for _, e := range l {
			if cur, ok := others[e.ID]; !ok || supersedes(e, cur.e) {
				others[e.ID] = pick{e, i}
			}
		}
	}
	if len(others) == 0 {
		return lists[longest]
	}
	out := make([]jsonl.Entry, 0, len(lists[longest])+len(others))
	for _, e := range lists[longest] {
		o, ok := others[e.ID]
		if !ok {
			out = append(out, e)
			continue
		}
		delete(others, e.ID)
		// Of two copies of one version, the first source's.
		if supersedes(o.e, e) || (o.source < longest && string(o.e.Raw) == string(e.Raw)) {
			e = o.e
		}
		out = append(out, e)
	}
	for _, o := range others {
		out = append(out, o.e)
	}
	return out
}

// sortByID sorts entries by id, as a selection returns them.
func sortByID(entries []jsonl.Entry) {
	if slices.IsSortedFunc(entries, byID) {
		return
	}
	slices.SortFunc(entries, byID)
}

func byID(a, b jsonl.Entry) int { return strings.Compare(a.ID, b.ID) }
