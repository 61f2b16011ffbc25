package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// unite picks, for each id, the version the version rule prefers, and of
// copies of one version the first source's, whichever source is the
// longest (the one it walks without a map).
func TestUnitePicksTheNewestVersionAndTheFirstSourcesCopy(t *testing.T) {
	v := func(id string, n int) string {
		return fmt.Sprintf(`{"id":%q,"updated_at":"2026-11-0%dT00:00:00Z"}`, id, n)
	}
	tests := []struct {
		name    string
		sources [][]string // each source's selection, by line
		want    []string   // "source:version" for each id, by id
	}{
		{"one source", [][]string{{v("a", 1), v("b", 1)}}, []string{"0:" + v("a", 1), "0:" + v("b", 1)}},
		{"the longest first, newer in the other", [][]string{{v("a", 1), v("b", 1), v("c", 1)}, {v("b", 2)}},
			[]string{"0:" + v("a", 1), "1:" + v("b", 2), "0:" + v("c", 1)}},
		{"the longest last, newer in it", [][]string{{v("b", 1)}, {v("a", 1), v("b", 2), v("c", 1)}},
			[]string{"1:" + v("a", 1), "1:" + v("b", 2), "1:" + v("c", 1)}},
		{"a copy in both: the first source's", [][]string{{v("b", 1)}, {v("a", 1), v("b", 1), v("c", 1)}},
			[]string{"1:" + v("a", 1), "0:" + v("b", 1), "1:" + v("c", 1)}},
		{"a copy in the longest and a later source: the longest's", [][]string{{v("a", 1), v("b", 1)}, {v("b", 1)}},
			[]string{"0:" + v("a", 1), "0:" + v("b", 1)}},
		{"three sources, copies around the longest", [][]string{{v("b", 1)}, {v("a", 1), v("b", 1), v("c", 1)}, {v("b", 1), v("d", 1)}},
			[]string{"1:" + v("a", 1), "0:" + v("b", 1), "1:" + v("c", 1), "2:" + v("d", 1)}},
		{"three sources, the newest in the last", [][]string{{v("b", 1)}, {v("a", 1), v("b", 2), v("c", 1)}, {v("b", 3)}},
			[]string{"1:" + v("a", 1), "2:" + v("b", 3), "1:" + v("c", 1)}},
		{"ids only in the shorter sources", [][]string{{v("x", 1)}, {v("a", 1), v("b", 1)}, {v("y", 2)}},
			[]string{"1:" + v("a", 1), "1:" + v("b", 1), "0:" + v("x", 1), "2:" + v("y", 2)}},
		{"empty sources", [][]string{nil, {v("a", 1)}, nil}, []string{"1:" + v("a", 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lists := make([][]jsonl.Entry, len(tt.sources))
			for i, src := range tt.sources {
				for line, raw := range src {
					id := strings.SplitN(raw, `"`, 5)[3]
					lists[i] = append(lists[i], jsonl.Entry{ID: id, File: fmt.Sprint(i), Line: line + 1, Raw: []byte(raw)})
				}
			}
			got := unite(lists)
			sortByID(got)
			var picked []string
			for _, e := range got {
				picked = append(picked, e.File+":"+string(e.Raw))
			}
			if !slices.Equal(picked, tt.want) {
				t.Errorf("united\n%s\nwant\n%s", strings.Join(picked, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
