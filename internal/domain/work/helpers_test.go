package work

import "github.com/git-queen/git-queen/internal/storage/jsonl"

// ReadBeads is the open work of a beads issue file, made whole (see
// Pool.AddBeads).
func ReadBeads(file string, data []byte) ([]Item, []jsonl.Problem) {
	var p Pool
	p.AddBeads(file, data)
	items := make([]Item, 0, len(p.entries))
	for i := range p.entries {
		items = append(items, p.entries[i].Item())
	}
	return items, p.Problems
}
