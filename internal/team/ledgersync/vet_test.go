package ledgersync

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
)

// What vet keeps of a chunk of lines that each break a rule is a count and
// the first line's words and example a rule, however many lines there
// are, and it makes them in the same number of allocations for ten lines
// as for ten thousand (but for the error value the JSON scanner makes of
// a line that is not JSON, which is garbage at once): a hostile ledger of
// tiny invalid lines costs a join its counts, not a struct and a message
// a line. The words and example are those of the first line that broke
// the rule.
func TestVetKeepsACountOfInvalidLines(t *testing.T) {
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, file string
		lines      []string // repeated in turn
		rules      []string // the rule each line breaks
		allocs     float64  // a line, the scanner's
	}{
		{"empty objects", records.MessagesFile, []string{"{}"}, []string{records.RuleRequired}, 0},
		{"not JSON", records.MessagesFile, []string{"x"}, []string{records.RuleJSON}, 2},
		{"mixed", records.ReservationsFile, []string{`{"id":1}`, "[]", `{"ID":"qr-1"}`, `{}`, `{"updated_at":"2026-11-01T00:00:00Z"}`},
			[]string{records.RuleType, records.RuleJSON, records.RuleKey, records.RuleRequired, records.RuleRequired}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			chunk := func(n int) []byte {
				var b bytes.Buffer
				for i := range n {
					b.WriteString(c.lines[i%len(c.lines)] + "\n")
				}
				return b.Bytes()
			}
			allocs := map[int]float64{}
			for _, n := range []int{10 * len(c.lines), 10000 * len(c.lines)} {
				data := chunk(n)
				v := vetData(c.file, data, now)
				if len(v.valid) != 0 || cap(v.valid) != 0 {
					t.Errorf("%d lines: vet holds %d valid (room for %d)", n, len(v.valid), cap(v.valid))
				}
				var want []ruleBreaks
				for i, rule := range c.rules {
					k := slices.IndexFunc(want, func(b ruleBreaks) bool { return b.rule == rule })
					if k < 0 {
						first := []byte(c.lines[i])
						_, e := records.CheckVersionAt(c.file, first, now)
						want = append(want, ruleBreaks{rule: rule, msg: e.Msg, example: exampleOf(first)})
						k = len(want) - 1
					}
					want[k].n += n / len(c.lines)
				}
				if !slices.Equal(v.broken, want) {
					t.Errorf("%d lines: vet counted %+v, want %+v", n, v.broken, want)
				}
				allocs[n] = testing.AllocsPerRun(5, func() { vetData(c.file, data, now) })
			}
			small, large := allocs[10*len(c.lines)], allocs[10000*len(c.lines)]
			if large-small > c.allocs*float64(9990*len(c.lines))+8 { // 8: what the runtime may make on its own
				t.Errorf("vet made %v allocations for %d lines, %v for %d", small, 10*len(c.lines), large, 10000*len(c.lines))
			}
		})
	}
}

// Valid lines among many invalid ones are kept, in their order, copied
// out of the chunk's bytes when they are the smaller part of them (what
// vet keeps of a chunk is bounded by what is valid), and left in place
// when they are most of it.
func TestVetKeepsValidLinesOutOfASparseChunk(t *testing.T) {
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	msg := func() string {
		return fmt.Sprintf(`{"id":%q,"created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-02T00:00:00Z","from":"ann","to":"bob","subject":"s","body":"b","importance":"normal","read":false,"updated_by":"ann"}`, ids.NewMessage())
	}
	for _, c := range []struct {
		name    string
		invalid int // lines of "{}" after each valid one
		copied  bool
	}{
		{"sparse", 500, true},
		{"dense", 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			var want []string
			for range 3 {
				want = append(want, msg())
				b.WriteString(want[len(want)-1] + "\n" + string(bytes.Repeat([]byte("{}\n"), c.invalid)))
			}
			data := b.Bytes()
			v := vetData(records.MessagesFile, data, now)
			var got []string
			for _, x := range v.valid {
				got = append(got, string(x.line))
			}
			if !slices.Equal(got, want) || len(v.broken) != 1 || v.broken[0].n != 3*c.invalid {
				t.Fatalf("kept %q and broken %+v, want %q and %d", got, v.broken, want, 3*c.invalid)
			}
			clear(data) // a chunk vet copied out of is not read again
			for i, x := range v.valid {
				if copied := string(x.line) == want[i]; copied != c.copied {
					t.Errorf("line %d: copied %v, want %v", i, copied, c.copied)
				}
			}
		})
	}
}

// BenchmarkVetHostileChunk vets a chunk of the largest size a ledger
// holds made of tiny lines that each break a rule.
func BenchmarkVetHostileChunk(b *testing.B) {
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, line string }{
		{"empty-object", "{}"},
		{"not-json", "x"},
	} {
		data := bytes.Repeat([]byte(c.line+"\n"), (4<<20)/(len(c.line)+1))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				vetData(records.MessagesFile, data, now)
			}
		})
	}
}

// BenchmarkVetHonestChunk vets a chunk of the size git-queen writes (64
// KiB) of message versions, as a join does.
func BenchmarkVetHonestChunk(b *testing.B) {
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var data []byte
	for len(data) < 64<<10 {
		data = fmt.Appendf(data, `{"id":%q,"created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-02T00:00:00Z","from":"ann","to":"bob","subject":"a subject of some words","body":"%s","importance":"normal","read":false,"updated_by":"ann"}`+"\n",
			ids.NewMessage(), bytes.Repeat([]byte("lorem ipsum "), 20))
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		vetData(records.MessagesFile, data, now)
	}
}
