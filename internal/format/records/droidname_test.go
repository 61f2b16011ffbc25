package records

import "testing"

// CanonicalDroid gives one form of a name, whatever form it came in.
func TestCanonicalDroid(t *testing.T) {
	for in, want := range map[string]string{
		"ann":         "ann",
		"jos\u00e9":   "jos\u00e9",   // composed: as it is
		"jose\u0301":  "jos\u00e9",   // decomposed: composed
		"Ann":         "Ann",         // case is the droid's own
		"\u212bngstr": "\u00c5ngstr", // the angstrom sign is its letter in NFC
		"":            "",
	} {
		if got := CanonicalDroid(in); got != want {
			t.Errorf("CanonicalDroid(%q) = %q, want %q", in, got, want)
		}
	}
}
