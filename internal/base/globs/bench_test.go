package globs

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// typicalPairs are the reservations the speed target is about: at most
// 5 µs a pair once both patterns are compiled.
var typicalPairs = []struct{ name, a, b string }{
	{"dir-vs-star", "src/components/**", "src/*/Button.tsx"},
	{"ext-vs-dir", "**/*.ts", "src/api/**"},
	{"plain-same", "src/api/handler.go", "src/api/handler.go"},
	{"plain-differ", "src/api/handler.go", "src/web/app.ts"},
	{"dir-vs-plain", "src/api/**", "src/api/v2/users.go"},
	{"docs", "docs/*.md", "**/README.md"},
}

// BenchmarkOverlap: compiled patterns, automata already built (a pattern
// checked again and again, as the active set is).
func BenchmarkOverlap(b *testing.B) {
	for _, tt := range typicalPairs {
		p, q := mustCompile(b, tt.a), mustCompile(b, tt.b)
		p.Overlap(q)
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				p.Overlap(q)
			}
		})
	}
}

// BenchmarkOverlapCold compiles both patterns and builds their automata
// from nothing every time: the cost of a pattern seen once.
func BenchmarkOverlapCold(b *testing.B) {
	for _, tt := range typicalPairs {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				mustCompile(b, tt.a).Overlap(mustCompile(b, tt.b))
			}
		})
	}
}

// BenchmarkSeedPatternsOverlap is the seed's guess on the same pairs.
func BenchmarkSeedPatternsOverlap(b *testing.B) {
	for _, tt := range typicalPairs {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				seedPatternsOverlap(tt.a, tt.b)
			}
		})
	}
}

// activeSet returns n realistic active reservations in a monorepo: mostly
// directories and single files under a few hundred directories, some
// extension globs, some test-file globs, a few repository-wide patterns.
func activeSet(n int) []string {
	rng := rand.New(rand.NewPCG(5, 6))
	tops := []string{"src", "internal", "cmd", "docs", "web", "pkg", "scripts", "test", "api", "services"}
	words := []string{"auth", "billing", "users", "search", "cache", "queue", "admin", "ui", "core", "util",
		"http", "db", "events", "jobs", "mail", "metrics", "orders", "payments", "reports", "storage",
		"components", "hooks", "models", "routes", "views"}
	exts := []string{"go", "ts", "tsx", "md", "py", "css", "json", "yaml"}
	dir := func() string {
		d := tops[rng.IntN(len(tops))]
		for range 1 + rng.IntN(3) {
			d += "/" + words[rng.IntN(len(words))]
		}
		return d
	}
	out := make([]string, n)
	for i := range out {
		switch k := rng.IntN(100); {
		case k < 40:
			out[i] = dir() + "/**"
		case k < 70:
			out[i] = fmt.Sprintf("%s/%s_%d.%s", dir(), words[rng.IntN(len(words))], rng.IntN(100), exts[rng.IntN(len(exts))])
		case k < 85:
			out[i] = dir() + "/*." + exts[rng.IntN(len(exts))]
		case k < 95:
			out[i] = dir() + "/**/*_test." + exts[rng.IntN(2)]
		case k < 98:
			out[i] = dir() + "/*/" + words[rng.IntN(len(words))] + ".{ts,tsx}"
		default:
			out[i] = "**/" + words[rng.IntN(len(words))] + "." + exts[rng.IntN(len(exts))]
		}
	}
	return out
}

// BenchmarkCheck10000 checks one new reservation against 10,000 active ones,
// as `git queen reserve` does. "fresh" compiles all 10,000 each time (one
// command invocation); "warm" reuses compiled patterns; "seed" runs the
// seed's PatternsOverlap over the same strings.
func BenchmarkCheck10000(b *testing.B) {
	active := activeSet(10000)
	for _, pattern := range []string{"src/components/**", "**/*.ts", "src/auth/users/login.go"} {
		b.Run("fresh/"+pattern, func(b *testing.B) {
			var conflicts int
			for b.Loop() {
				conflicts = 0
				p := mustCompile(b, pattern)
				for _, s := range active {
					if _, ok, _ := p.Overlap(mustCompile(b, s)); ok {
						conflicts++
					}
				}
			}
			b.ReportMetric(float64(conflicts), "conflicts")
		})
		b.Run("warm/"+pattern, func(b *testing.B) {
			p := mustCompile(b, pattern)
			compiled := make([]*Pattern, len(active))
			for i, s := range active {
				compiled[i] = mustCompile(b, s)
			}
			for b.Loop() {
				for _, q := range compiled {
					p.Overlap(q)
				}
			}
		})
		b.Run("seed/"+pattern, func(b *testing.B) {
			var conflicts int
			for b.Loop() {
				conflicts = 0
				for _, s := range active {
					if seedPatternsOverlap(pattern, s) {
						conflicts++
					}
				}
			}
			b.ReportMetric(float64(conflicts), "conflicts")
		})
	}
}

// BenchmarkMatch is the pre-commit hook's question for one staged path,
// beside doublestar.Match.
func BenchmarkMatch(b *testing.B) {
	cases := []struct{ pattern, path string }{
		{"src/components/**", "src/components/forms/Button.tsx"},
		{"**/*_test.go", "internal/base/globs/overlap_test.go"},
		{"src/*/Button.tsx", "src/components/Button.tsx"},
		{"docs/*.md", "src/components/Button.tsx"},
	}
	for _, c := range cases {
		p := mustCompile(b, c.pattern)
		p.Match(c.path)
		b.Run("globs/"+c.pattern, func(b *testing.B) {
			for b.Loop() {
				p.Match(c.path)
			}
		})
		b.Run("doublestar/"+c.pattern, func(b *testing.B) {
			for b.Loop() {
				doublestar.Match(c.pattern, c.path)
			}
		})
	}
}

func mustCompile(tb testing.TB, s string) *Pattern {
	p, err := Compile(s)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
