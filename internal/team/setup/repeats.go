package setup

import (
	"bytes"
	"hash/maphash"
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
// earlier line byte for byte, keeping every line where it was (so that
// the validator, which skips blank lines, reports any other problem at
// its own line), and returns how many it blanked.
func blankRepeats(data []byte) int {
	type span struct{ start, end int }
	seed := maphash.MakeSeed()
	kept := map[uint64][]span{} // the lines kept, by their hash
	n := 0
	for start := 0; start < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end = start + i
		}
		line := data[start:end]
		if len(bytes.TrimSpace(line)) > 0 {
			h := maphash.Bytes(seed, line)
			repeat := false
			for _, k := range kept[h] {
				if bytes.Equal(data[k.start:k.end], line) {
					repeat = true
					break
				}
			}
			if repeat {
				for i := range line {
					line[i] = ' '
				}
				n++
			} else {
				kept[h] = append(kept[h], span{start, end})
			}
		}
		start = end + 1
	}
	return n
}
