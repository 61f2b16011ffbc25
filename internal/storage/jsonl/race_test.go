//go:build race

package jsonl

// raceEnabled says the tests run under the race detector, which makes
// the largest workloads ten to twenty times slower: they are cut there,
// and run whole in the plain test run.
const raceEnabled = true
