package globs

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// genPattern builds a random pattern over a tiny alphabet, biased towards
// the constructs whose interplay is subtle: '*' next to '*', '/' and
// braces, classes that can match '/', escapes and nesting. Some results
// are invalid or break the rules; callers skip those.
func genPattern(rng *rand.Rand, size int) string {
	var b strings.Builder
	genSeq(rng, &b, size, 0)
	return b.String()
}

func genSeq(rng *rand.Rand, b *strings.Builder, size, depth int) {
	for range size {
		switch k := rng.IntN(20); {
		case k < 4:
			b.WriteString([]string{"a", "b", "a", "b", "é"}[rng.IntN(5)])
		case k < 7:
			b.WriteByte('/')
		case k < 11:
			b.WriteByte('*')
		case k < 12:
			b.WriteByte('?')
		case k < 13:
			b.WriteByte('.')
		case k < 15:
			b.WriteString([]string{"[ab]", "[!a]", "[^/]", "[/]", "[a-c]", "[!.]", "[.-0]", "[\\]a]", "[à-ÿ]", "[!é]"}[rng.IntN(10)])
		case k < 16:
			b.WriteString([]string{`\*`, `\/`, `\{`, `\.`, `\?`, `\,`}[rng.IntN(6)])
		case k < 18 && depth < 2:
			b.WriteByte('{')
			n := 1 + rng.IntN(3)
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				genSeq(rng, b, rng.IntN(4), depth+1)
			}
			b.WriteByte('}')
		default:
			b.WriteString([]string{"**", "/**/", "**/", "/**"}[rng.IntN(4)])
		}
	}
}

// genBraces builds patterns dense in the constructs whose interplay broke
// earlier versions: empty and nested braces next to '*', "**" and '/'.
func genBraces(rng *rand.Rand, b *strings.Builder, size, depth int) {
	for range size {
		switch k := rng.IntN(16); {
		case k < 3:
			b.WriteByte("ab"[rng.IntN(2)])
		case k < 6:
			b.WriteByte('*')
		case k < 8:
			b.WriteByte('/')
		case k < 9:
			b.WriteString([]string{"{}", "{,}", "[!a]", "?"}[rng.IntN(4)])
		case k < 12 && depth < 3:
			b.WriteByte('{')
			for i := range 1 + rng.IntN(2) {
				if i > 0 {
					b.WriteByte(',')
				}
				genBraces(rng, b, rng.IntN(4), depth+1)
			}
			b.WriteByte('}')
		default:
			b.WriteString([]string{"**", "**/", "/**", "*/"}[rng.IntN(4)])
		}
	}
}

// pathAlphabet returns the runes the patterns spell out (outside syntax),
// the runes right after syntax that can start a class member or an escape,
// '/', and one rune none of them mentions, sorted. Enumerating short paths
// over it meets every way the patterns can tell runes apart, except inside
// class ranges, where the ends stand for the range.
func pathAlphabet(patterns ...string) []rune {
	set := map[rune]bool{'/': true}
	for _, p := range patterns {
		prev := rune(0)
		for _, r := range p {
			switch r {
			case '*', '?', '[', ']', '{', '}', ',', '\\', '!', '^', '-':
			default:
				set[r] = true
			}
			if prev == '\\' || prev == '[' || prev == '-' || prev == ',' || prev == '!' || prev == '^' {
				set[r] = true
			}
			prev = r
		}
	}
	for _, other := range "xyzq" {
		if !set[other] {
			set[other] = true
			break
		}
	}
	delete(set, 0)
	rs := make([]rune, 0, len(set))
	for r := range set {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}

// pathBound is the longest path length to enumerate over an alphabet of n
// runes so that there are at most about budget paths.
func pathBound(n, budget int) int {
	total, pow, l := 1, 1, 0
	for {
		pow *= n
		if total+pow > budget {
			return l
		}
		total += pow
		l++
	}
}

// allPaths calls f with every string of length 0..n over the alphabet.
func allPaths(alpha []rune, n int, f func(string) bool) {
	buf := make([]rune, 0, n)
	var rec func() bool
	rec = func() bool {
		if !f(string(buf)) {
			return false
		}
		if len(buf) == n {
			return true
		}
		for _, r := range alpha {
			buf = append(buf, r)
			if !rec() {
				return false
			}
			buf = buf[:len(buf)-1]
		}
		return true
	}
	rec()
}

// isGitPath is the oracle's notion of a path a hook can see.
func isGitPath(s string) bool {
	if s == "" || strings.IndexByte(s, 0) >= 0 {
		return false
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
