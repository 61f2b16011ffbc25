package merge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRepairSnapshot pins what repairing a union of snapshot lines gives:
// the outputs and reports are those of the algorithm before its versions
// were kept distinct with a set (one lookup per line, not a scan of the
// id's versions).
func TestRepairSnapshot(t *testing.T) {
	tests := []struct {
		name, in, want, report string
	}{
		{"a repeated version counts once",
			"{\"id\":\"a\",\"t\":\"1\",\"updated_at\":\"2026-01-01T00:00:01Z\"}\n" +
				"{\"id\":\"a\",\"t\":\"2\",\"updated_at\":\"2026-01-01T00:00:02Z\"}\n" +
				"{\"id\":\"a\",\"t\":\"1\",\"updated_at\":\"2026-01-01T00:00:01Z\"}\n",
			"{\"id\":\"a\",\"t\":\"2\",\"updated_at\":\"2026-01-01T00:00:02Z\"}\n",
			"2 lines repeated an id (1 ids, e.g. a); the versions of each id were merged, the later updated_at winning each field"},
		{"versions merged field by field, lines that are no records last",
			"{\"id\":\"b\",\"x\":1}\nnot json\n{\"id\":\"a\",\"y\":2}\n{\"id\":\"b\",\"x\":1}\n" +
				"{\"id\":\"a\",\"y\":3,\"z\":[\"p\"],\"updated_at\":\"2026-01-01T00:00:00Z\"}\n" +
				"{\"id\":\"a\",\"z\":[\"q\"],\"updated_at\":\"2026-01-02T00:00:00Z\"}\n",
			"{\"id\":\"a\",\"z\":[\"p\",\"q\"],\"updated_at\":\"2026-01-02T00:00:00Z\",\"y\":3}\n{\"id\":\"b\",\"x\":1}\nnot json\n",
			"3 lines repeated an id (2 ids, e.g. b); the versions of each id were merged, the later updated_at winning each field"},
		{"unsorted ids are sorted", "{\"id\":\"b\"}\n{\"id\":\"a\"}\n", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", "records sorted by id"},
		{"a sorted snapshot is left alone", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, reports := repairSnapshot([]byte(tt.in), "id")
			if string(out) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out, tt.want)
			}
			report := ""
			if len(reports) == 1 {
				report = reports[0].Detail
			}
			if len(reports) > 1 || report != tt.report {
				t.Errorf("reports %+v, want %q", reports, tt.report)
			}
		})
	}
}

// TestRepairSnapshotIgnoresOrderAndRepeats checks on random small unions
// that the repaired snapshot depends only on the set of versions: the
// lines shuffled and some repeated give the same file.
func TestRepairSnapshotIgnoresOrderAndRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var lines [][]byte
		for range 2 + rng.IntN(8) {
			lines = append(lines, fmt.Appendf(nil, `{"id":"%c","v":%d,"l":["%c"],"updated_at":"2026-01-0%dT00:00:00Z"}`,
				'a'+rng.IntN(3), rng.IntN(3), 'p'+rng.IntN(3), 1+rng.IntN(3)))
		}
		lines = append(lines, lines[0]) // at least one repeat: always repaired
		want, _ := repairSnapshot(append(bytes.Join(lines, []byte("\n")), '\n'), "id")
		other := slices.Clone(lines)
		for range rng.IntN(4) {
			other = append(other, lines[rng.IntN(len(lines))])
		}
		rng.Shuffle(len(other), func(i, j int) { other[i], other[j] = other[j], other[i] })
		got, _ := repairSnapshot(append(bytes.Join(other, []byte("\n")), '\n'), "id")
		if !bytes.Equal(got, want) {
			t.Fatalf("lines\n%s\ngave\n%s\nshuffled and repeated\n%s\ngave\n%s", bytes.Join(lines, []byte("\n")), want, bytes.Join(other, []byte("\n")), got)
		}
	}
}
