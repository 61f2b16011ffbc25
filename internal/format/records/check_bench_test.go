package records

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkCheckVersion measures the rule check a sync runs on every line
// it receives: a typical line of each log, and the costliest patterns,
// each checked cold (a hostile writer never repeats a pattern).
func BenchmarkCheckVersion(b *testing.B) {
	for _, c := range []struct {
		name, file, line string
	}{
		{"message", MessagesFile, build(baseMessage)},
		{"message-64KiB", MessagesFile, build(baseMessage, set("body", q(strings.Repeat("lorem ipsum ", 64<<10/12))))},
		{"assignment", AssignmentsFile, build(baseAssignment)},
		{"reservation", ReservationsFile, build(baseReservation)},
		{"reservation-literal", ReservationsFile, build(baseReservation, set("pattern", q("src/api/handler.go")))},
		{"reservation-wildcards", ReservationsFile, build(baseReservation, set("pattern", q("src/**/a*b?c[0-9]/{x,y}*.go")))},
		{"reservation-4KiB-pattern", ReservationsFile, build(baseReservation, set("pattern", q(strings.Repeat("*a", 2047)+"/")))},
		{"reservation-4KiB-literal", ReservationsFile, build(baseReservation, set("pattern", q(strings.Repeat("abcdefg/", 511))))},
	} {
		b.Run(c.name, func(b *testing.B) {
			line := []byte(c.line)
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				clear(verdicts.m)
				CheckVersion(c.file, line)
			}
		})
	}
}

// BenchmarkCheckVersionAt measures the vetting of a join: CheckVersionAt on
// every received line, which also reads the line's id and time.
func BenchmarkCheckVersionAt(b *testing.B) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, file, line string
	}{
		{"message", MessagesFile, build(baseMessage)},
		{"message-1KiB", MessagesFile, build(baseMessage, set("body", q(strings.Repeat("lorem ipsum ", 1<<10/12))))},
		{"assignment", AssignmentsFile, build(baseAssignment)},
		{"reservation", ReservationsFile, build(baseReservation)},
	} {
		b.Run(c.name, func(b *testing.B) {
			line := []byte(c.line)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, e := CheckVersionAt(c.file, line, now); e != nil {
					b.Fatal(e)
				}
			}
		})
	}
}
