package setup

import (
	"bytes"
	"hash/maphash"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// A received log (queen/received/) can hold a version twice, byte for
// byte: an earlier git-queen applied a version again when the ledger
// carried it twice (two chunks, two commits), where sync now applies it
// once. The validator reports the second copy as a union merge's
// duplicate line, and its advice (resolve the file in .beads/, or delete
// the line by hand) fits a tracked file, not a log git-queen appends to.
// Readers take one copy as well as the other, so nothing is wrong with
// what the clone reads: doctor warns, and `git queen compact` (which
// keeps one version of each id) removes the copies.

// blankRepeats overwrites with spaces every line of data that repeats an
// earlier line byte for byte (as the validator reads lines), keeping every
// line where it was (so that the validator, which skips blank lines,
// reports any other problem at its own line), and returns how many it
// blanked.
func blankRepeats(data []byte) int {
	seed := maphash.MakeSeed()
	kept := map[uint64][][]byte{} // the lines kept, by their hash
	n := 0
	for l := range jsonline.Lines(data) {
		if l.Blank() {
			continue
		}
		h := maphash.Bytes(seed, l.Raw)
		if !slices.ContainsFunc(kept[h], func(k []byte) bool { return bytes.Equal(k, l.Raw) }) {
			kept[h] = append(kept[h], l.Raw)
			continue
		}
		for i := range l.Raw { // Raw is data's own bytes
			l.Raw[i] = ' '
		}
		n++
	}
	return n
}
