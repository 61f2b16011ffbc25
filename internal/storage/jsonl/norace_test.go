//go:build !race

package jsonl

// raceEnabled: see race_test.go.
const raceEnabled = false
