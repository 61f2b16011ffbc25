package reservations

import (
	"strings"
	"sync/atomic"

	"golang.org/x/text/unicode/norm"
)

// Paths and patterns are compared in one Unicode normalisation (NFC): a
// file added as café/new.txt in decomposed form (as macOS spells names)
// is the path a reservation of café/** written composed means. In a
// repository with core.ignorecase=true (a case-insensitive file system,
// where SRC/a.go and src/a.go are one file) they are compared ignoring
// case too.

var ignoreCase atomic.Bool

// IgnoreCase makes comparisons case-insensitive (core.ignorecase).
func IgnoreCase(on bool) { ignoreCase.Store(on) }

// fold is s as paths and patterns are compared.
func fold(s string) string {
	if !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	if ignoreCase.Load() {
		s = strings.ToLower(s)
	}
	return s
}
