package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// mergeEvents merges a VerMAS event log (seed 004). Events are immutable
// facts named by event_id: the line union keeps every event either side
// added once, and orders the additions by timestamp (each side's own order
// kept). Two lines that carry one event_id and the same JSON value written
// differently (another writer's key order or spacing) are one event: the
// smaller spelling is kept. Two different events that claim one event_id
// are both kept, and reported, since dropping either would lose a fact.
func mergeEvents(base, ours, theirs []byte, drop func([]byte) bool) ([]byte, []Report) {
	var reports []Report
	out := unionWith(base, [][]byte{ours, theirs}, unionConfig{key: timeKey("timestamp"), drop: drop,
		canon: func(baseCount map[string]int, sideLines [][][]byte) { reports = canonicalEvents(baseCount, sideLines) }})
	return out, reports
}

// canonicalEvents rewrites, in the lines the sides added, each spelling of
// an event to the smallest spelling of the same JSON value with the same
// id, and reports ids that name different events.
func canonicalEvents(baseCount map[string]int, sideLines [][][]byte) []Report {
	keys, vals := []string{"event_id"}, make([][]byte, 1)
	spellings := map[string][][]byte{} // id -> distinct added lines
	seen := map[string]bool{}          // every line kept there, so a check costs one lookup
	for _, lines := range sideLines {
		for _, l := range lines {
			if baseCount[string(l)] > 0 || seen[string(l)] {
				continue
			}
			id, ok := stringField(l, keys, vals)
			if !ok {
				continue
			}
			seen[string(l)] = true
			spellings[id] = append(spellings[id], l)
		}
	}
	var reports []Report
	rewrite := map[string][]byte{}
	for id, lines := range spellings {
		if len(lines) < 2 {
			continue
		}
		classes := equivalenceClasses(lines)
		for _, c := range classes {
			for _, l := range c[1:] {
				rewrite[string(l)] = c[0]
			}
		}
		if len(classes) > 1 {
			reports = append(reports, Report{Kind: KindEventCollision, ID: id,
				Detail: fmt.Sprintf("%d different events carry event_id %s; all are kept", len(classes), id)})
		}
	}
	if len(rewrite) > 0 {
		for _, lines := range sideLines {
			for i, l := range lines {
				if r, ok := rewrite[string(l)]; ok {
					lines[i] = r
				}
			}
		}
	}
	slices.SortFunc(reports, func(a, b Report) int { return strings.Compare(a.ID, b.ID) })
	return reports
}

// equivalenceClasses groups lines that hold the same JSON value; each class
// starts with its smallest spelling. Numbers are compared as they are
// written, not as float64, which holds no integer past 2^53: two events
// whose amounts differ only there were one event, and one was dropped
// (1 and 1.0 are two events now, both kept and reported, which loses
// nothing).
//
// A line whose strings do not decode as written (invalid UTF-8, an escaped
// lone surrogate: both decode to U+FFFD) is a class of its own: two events
// that differed only there were one event, and one was dropped.
//
// A value is found by its canonical spelling (json.Marshal's: object keys
// sorted, numbers as written), which two decoded values share exactly when
// they are deeply equal: one lookup a line, not a comparison with every
// class.
func equivalenceClasses(lines [][]byte) [][][]byte {
	sorted := slices.Clone(lines)
	slices.SortFunc(sorted, bytes.Compare)
	var classes [][][]byte
	class := map[string]int{} // a value's key -> its class
	for _, l := range sorted {
		key := "line " + string(l) // a class of its own, equal to no decoded value
		var v any
		d := json.NewDecoder(bytes.NewReader(l))
		d.UseNumber()
		if utf8.Valid(l) && !surrogateEscape().Match(l) && d.Decode(&v) == nil && !d.More() {
			if canonical, err := json.Marshal(v); err == nil {
				key = "value " + string(canonical)
			}
		}
		if i, ok := class[key]; ok {
			classes[i] = append(classes[i], l)
			continue
		}
		class[key] = len(classes)
		classes = append(classes, [][]byte{l})
	}
	return classes
}

// surrogateEscape finds a \u escape of a UTF-16 surrogate: one alone
// decodes to U+FFFD. A pair is caught too, which at worst keeps two
// spellings of one event (reported as a collision).
var surrogateEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\u[dD][89a-fA-F]`) })
