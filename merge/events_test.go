package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestEquivalenceClasses checks the classes against their definition on
// random spellings of a few events (keys in another order, spaces, numbers
// written otherwise, a line that is no JSON): two lines share a class
// exactly when their decoded values are deeply equal (numbers as written),
// a line that does not decode is alone, each class starts with its
// smallest spelling, and the classes come in the order of those.
func TestEquivalenceClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	spell := func() []byte {
		fields := []string{`"event_id":"e1"`, fmt.Sprintf(`"n":%s`, []string{"1", "1.0", "2", "12345678901234567891"}[rng.IntN(4)]),
			fmt.Sprintf(`"tags":[%s]`, []string{`"a"`, `"a","b"`, `"b","a"`}[rng.IntN(3)])}
		rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		if rng.IntN(10) == 0 {
			return []byte(`{"event_id":"e1",` + fields[0]) // no JSON
		}
		return []byte("{" + strings.Join(fields, []string{",", ", "}[rng.IntN(2)]) + "}")
	}
	decode := func(l []byte) (any, bool) {
		var v any
		d := json.NewDecoder(bytes.NewReader(l))
		d.UseNumber()
		return v, d.Decode(&v) == nil && !d.More()
	}
	for range 300 {
		var lines [][]byte
		for range 1 + rng.IntN(12) {
			if l := spell(); !slices.ContainsFunc(lines, func(x []byte) bool { return bytes.Equal(x, l) }) {
				lines = append(lines, l)
			}
		}
		classes := equivalenceClasses(lines)
		classOf := map[string]int{}
		for i, c := range classes {
			if i > 0 && bytes.Compare(classes[i-1][0], c[0]) >= 0 {
				t.Fatalf("classes out of order: %q before %q", classes[i-1][0], c[0])
			}
			for _, l := range c {
				classOf[string(l)] = i
				if bytes.Compare(l, c[0]) < 0 {
					t.Fatalf("class %q starts after its spelling %q", c[0], l)
				}
			}
		}
		if len(classOf) != len(lines) {
			t.Fatalf("%d lines in classes, want each of the %d once", len(classOf), len(lines))
		}
		for _, a := range lines {
			for _, b := range lines {
				va, okA := decode(a)
				vb, okB := decode(b)
				same := bytes.Equal(a, b) || okA && okB && reflect.DeepEqual(va, vb)
				if (classOf[string(a)] == classOf[string(b)]) != same {
					t.Fatalf("%s and %s: in one class %v, equal values %v", a, b, !same, same)
				}
			}
		}
	}
}

// TestEventsKeepStringsThatDecodeAlike checks that two events whose strings
// differ only in bytes that decode to U+FFFD (invalid UTF-8, an escaped
// lone surrogate) are both kept: decoded, they compared equal, and the
// merge dropped theirs without a word.
func TestEventsKeepStringsThatDecodeAlike(t *testing.T) {
	base := "{\"event_id\":\"e0\",\"timestamp\":\"2026-01-01T00:00:00Z\"}\n"
	for _, notes := range [][2]string{{"\xff", "\xfe"}, {`\ud800`, `\udfff`}} {
		line := func(note string) string {
			return "{\"event_id\":\"e1\",\"timestamp\":\"2026-01-02T00:00:00Z\",\"note\":\"" + note + "\"}\n"
		}
		ours, theirs := base+line(notes[0]), base+line(notes[1])
		res, err := Merge([]byte(base), []byte(ours), []byte(theirs), ".work/events.jsonl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := string(res.Bytes())
		if !strings.Contains(out, line(notes[0])) || !strings.Contains(out, line(notes[1])) {
			t.Errorf("notes %q: merged\n%s\nwant both events", notes, out)
		}
	}
}
