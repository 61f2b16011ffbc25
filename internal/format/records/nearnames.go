package records

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NearNames returns the candidates closest to name (droid names, flag
// names: what someone meant to type), at most five, if
// they are within a small edit distance (a transposition counts as one
// edit, case is ignored): one edit for names of up to four characters,
// two up to eight, three beyond.
func NearNames(name string, known []string) []string {
	limit := 3
	switch n := utf8.RuneCountInString(name); {
	case n <= 4:
		limit = 1
	case n <= 8:
		limit = 2
	}
	type cand struct {
		name string
		d    int
	}
	var near []cand
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k), limit); d <= limit {
			near = append(near, cand{k, d})
		}
	}
	slices.SortStableFunc(near, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range near {
		if c.d > near[0].d || len(out) == 5 {
			break // only the closest: "droid-5" for "droid-5x", not every droid-N
		}
		out = append(out, c.name)
	}
	return out
}

// OrList says names as a "did you mean" offers them: "a", "a or b",
// "a, b or c".
func OrList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Mistyped returns the names of known that name is most likely a typo of
// (NearNames: "alcie" for "alice", "Alice" for "alice"), leaving out name
// itself and the names it differs from only in its digits: "agent-3"
// beside "agent-2" is the next droid of a numbered team, not a typo.
func Mistyped(name string, known []string) []string {
	return NearNames(name, slices.DeleteFunc(slices.Clone(known), func(k string) bool {
		return k == name || !strings.EqualFold(k, name) && numbered(k) == numbered(name)
	}))
}

// numbered is name in lower case with each run of digits as one "#".
func numbered(name string) string {
	var b strings.Builder
	digits := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsDigit(r) && digits {
			continue
		}
		if digits = unicode.IsDigit(r); digits {
			r = '#'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// editDistance is the optimal string alignment distance between a and b
// in runes (insertions, deletions, substitutions and transpositions of
// neighbours), or limit+1 as soon as it must exceed limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
