// Package globs decides exactly whether two reservation patterns can match
// a common path, and names one such path, so that `git queen reserve` finds
// every real conflict, and only real ones, and can say "e.g. src/a.ts
// matches both". Guessing with prefixes and cross-matching (QueenBee's
// PatternsOverlap) is wrong both ways: it misses "{lib,src}/a*" against
// "lib/*.ts" and reports "src/**/*.go" against "src/x.ts".
//
// Semantics are those of doublestar.Match (github.com/bmatcuk/doublestar/v4),
// quirks included, because that is what the pre-commit hook runs: '*' and
// '?' never match '/', but a class such as [!a] does; "**" is special only
// as a whole segment; "src/**" matches "src" itself; leading dots are not
// special; and the matcher's greedy backtracking means some patterns match
// less than a regular expression would (see vm.go).
package globs
