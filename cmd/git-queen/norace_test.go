//go:build !race

package main

// raceEnabled says the test binary, and so every git-queen process the
// tests start, runs under the race detector, which multiplies memory use.
const raceEnabled = false
