package merge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/st"
)

// checkHistory merges a history and checks every property the format
// promises; it returns the first violation.
func checkHistory(h history) error {
	opts := Options{CheckpointInterval: h.interval}
	res, err := Merge(h.base, h.ours, h.theirs, h.path, opts)
	if err != nil {
		return err
	}
	got := res.Bytes()
	if res.Format == Text && h.format == Lines && !bytes.Contains(append(append(h.base, h.ours...), h.theirs...), []byte("{")) {
		return nil // no line of any input is JSON: git's text merge is right
	}
	if res.Format != h.format {
		return fmt.Errorf("detected %s, want %s", res.Format, h.format)
	}
	if res.Conflict {
		return fmt.Errorf("conflict: %+v", res.Reports)
	}
	if err := checkJSONL(got); err != nil {
		return err
	}
	// Convergence and idempotence hold for every format.
	if swapped, _ := Merge(h.base, h.theirs, h.ours, h.path, opts); !bytes.Equal(swapped.Bytes(), got) {
		return fmt.Errorf("swapping ours and theirs gives\n%s", swapped.Bytes())
	}
	for _, x := range [][]byte{h.base, h.ours, h.theirs} {
		if same, _ := Merge(x, x, x, h.path, opts); !bytes.Equal(same.Bytes(), withFinalNewline(x)) {
			return fmt.Errorf("merge(X,X,X) != X for\n%s", x)
		}
	}
	if one, _ := Merge(h.base, h.ours, h.base, h.path, opts); !bytes.Equal(one.Bytes(), withFinalNewline(h.ours)) {
		return fmt.Errorf("merge(O,A,O) != A")
	}
	switch h.format {
	case Snapshot:
		return checkSnapshot(h.base, h.ours, h.theirs, got)
	case Stream:
		return checkStream(h, got)
	}
	if err := checkCountRule(h.base, [][]byte{h.ours, h.theirs}, got); err != nil {
		return err
	}
	if h.format == Events || h.format == Autopilot {
		return checkAdditionsByTime(h, got)
	}
	return nil
}

// checkCountRule: every line appears base - max deletions + max additions
// times (nothing lost, nothing duplicated, removals respected).
func checkCountRule(base []byte, sides [][]byte, got []byte) error {
	bc, gc := lineCounts(base), lineCounts(got)
	all := maps2(bc)
	var sc []map[string]int
	for _, s := range sides {
		c := lineCounts(s)
		sc = append(sc, c)
		for l := range c {
			all[l] = true
		}
	}
	for l := range all {
		maxDel, maxAdd := 0, 0
		for _, c := range sc {
			maxDel = max(maxDel, bc[l]-c[l])
			maxAdd = max(maxAdd, c[l]-bc[l])
		}
		if want := bc[l] - maxDel + maxAdd; gc[l] != want {
			return fmt.Errorf("line %q appears %d times, want %d", l, gc[l], want)
		}
	}
	return nil
}

func maps2(m map[string]int) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// checkAdditionsByTime: when both sides appended in time order, the lines
// after the surviving base lines are in time order too.
func checkAdditionsByTime(h history, got []byte) error {
	key := timeKey("timestamp")
	if h.format == Autopilot {
		key = timeKey("ts")
	}
	bc := lineCounts(h.base)
	sorted := func(data []byte) bool {
		prev := ""
		for _, l := range splitLines(data, 1, nil) {
			if bc[string(l)] > 0 || !bytes.HasPrefix(l, []byte("{")) {
				continue
			}
			if key(l) < prev {
				return false
			}
			prev = key(l)
		}
		return true
	}
	if !sorted(h.ours) || !sorted(h.theirs) {
		return nil // the sides disagree with time themselves
	}
	oc := lineCounts(h.ours)
	for l, n := range lineCounts(h.theirs) {
		if n > bc[l] && oc[l] > bc[l] {
			return nil // a line both added binds both sides' orders
		}
	}
	prev := ""
	for _, l := range splitLines(got, 1, nil) {
		if bc[string(l)] > 0 || !bytes.HasPrefix(l, []byte("{")) {
			continue
		}
		if k := key(l); k < prev {
			return fmt.Errorf("additions out of time order at %s", l)
		}
		prev = key(l)
	}
	return nil
}

var seqField = regexp.MustCompile(`"seq":\d+`)

// checkStream: seq unique and increasing, the replay contract holds, every
// event either side added is there once (whatever its new seq), no side's
// tail checkpoint survives, and each side's events keep their order.
func checkStream(h history, got []byte) error {
	recs, errs := st.Parse(got)
	if len(errs) > 0 {
		return fmt.Errorf("merged stream does not parse: %v", errs)
	}
	var prevEvent int64 = -1
	seen := map[int64]bool{}
	for _, r := range recs {
		if r.Lane == st.LaneEvent {
			if seen[r.Seq] || r.Seq <= prevEvent {
				return fmt.Errorf("event seq %d not unique and increasing", r.Seq)
			}
			seen[r.Seq], prevEvent = true, r.Seq
		}
	}
	if err := st.CheckContract(recs); err != nil {
		return err
	}
	interval := h.interval
	if interval == 0 {
		interval = st.DefaultCheckpointInterval
	}
	if _, verbatim := trivial(h.base, [][]byte{h.ours, h.theirs}); !verbatim && st.TrailingEvents(recs) >= interval {
		return fmt.Errorf("%d trailing events, and no fresh checkpoint", st.TrailingEvents(recs))
	}
	noSeq := func(data []byte) map[string]int {
		m := map[string]int{}
		for _, l := range splitLines(data, 1, nil) {
			if bytes.Contains(l, []byte(`"lane":"event"`)) {
				m[seqField.ReplaceAllString(string(l), `"seq":_`)]++
			}
		}
		return m
	}
	bc, gc := noSeq(h.base), noSeq(got)
	for _, side := range [][]byte{h.ours, h.theirs} {
		for l, n := range noSeq(side) {
			if gc[l] < n-bc[l] || gc[l] == 0 {
				return fmt.Errorf("event %s lost", l)
			}
		}
	}
	// Events are never duplicated: a line both sides added is there once.
	oc, tc := noSeq(h.ours), noSeq(h.theirs)
	for l, n := range gc {
		if n > max(oc[l], tc[l], bc[l]) {
			return fmt.Errorf("event %s appears %d times", l, n)
		}
	}
	if full, _ := st.Replay(recs); len(recs) > 0 && len(full.Items) == 0 && strings.Contains(string(h.base), "upsert") {
		return fmt.Errorf("replay lost the plan")
	}
	return nil
}

// TestPropertiesOnRandomHistories runs thousands of generated histories of
// every format through the merge and checks the properties.
func TestPropertiesOnRandomHistories(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 6000
	if testing.Short() {
		n = 600
	}
	for i := range n {
		h := randomHistoryOf(rng, i)
		if err := checkHistory(h); err != nil {
			t.Fatalf("history %d (%s): %v\nbase:\n%s\nours:\n%s\ntheirs:\n%s", i, h.format, err, h.base, h.ours, h.theirs)
		}
	}
}

// FuzzMerge checks the properties on histories generated from the fuzzer's
// seed, and that arbitrary bytes in every format never break convergence,
// idempotence or the shape of the output.
func FuzzMerge(f *testing.F) {
	f.Add(uint64(1), uint8(0), []byte(nil), []byte(nil), []byte(nil))
	f.Add(uint64(7), uint8(5), []byte("{\"v\":3,\"seq\":1,\"lane\":\"event\",\"op\":\"init\",\"ts\":\"x\"}\n"),
		[]byte("<<<<<<< ours\n{\"id\":\"a\"}\n=======\n"), []byte("\xef\xbb\xbf{\"id\":\"a\"}\r\n{\"id\":\"b\"}"))
	f.Add(uint64(3), uint8(4), []byte("{\"id\":\"a\",\"updated_at\":\"2026-01-01T00:00:00Z\"}\n"),
		[]byte("{\"id\":\"a\",\"x\":1}\n{\"id\":\"a\",\"y\":[1]}\n"), []byte("{\"id\":\"a\",\"x\":2,\"y\":[2]}\nnot json"))
	f.Fuzz(func(t *testing.T, seed uint64, kind uint8, base, ours, theirs []byte) {
		h := randomHistoryOf(rand.New(rand.NewPCG(seed, uint64(kind))), int(kind))
		if err := checkHistory(h); err != nil {
			t.Fatalf("%s: %v\nbase:\n%s\nours:\n%s\ntheirs:\n%s", h.format, err, h.base, h.ours, h.theirs)
		}
		format := Formats[int(kind)%(len(Formats)-1)] // every format but text
		opts := Options{Format: format}
		res, err := Merge(base, ours, theirs, "f.jsonl", opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Bytes()) > 0 && res.Bytes()[len(res.Bytes())-1] != '\n' {
			t.Fatalf("%s: no final newline", format)
		}
		if swapped, _ := Merge(base, theirs, ours, "f.jsonl", opts); !bytes.Equal(swapped.Bytes(), res.Bytes()) {
			t.Fatalf("%s: not symmetric:\n%q\n%q", format, res.Bytes(), swapped.Bytes())
		}
		if same, _ := Merge(ours, ours, ours, "f.jsonl", opts); !bytes.Equal(same.Bytes(), withFinalNewline(ours)) {
			t.Fatalf("%s: merge(X,X,X) != X", format)
		}
		if _, ok := trivial(base, [][]byte{ours, theirs}); ok {
			return // a one-sided change is that side verbatim, checked above
		}
		prefix := commonPrefix(base, [][]byte{ours, theirs})
		if format != Snapshot && format != Stream && !bytes.HasPrefix(res.Bytes(), base[:prefix]) {
			t.Fatalf("%s: the common prefix was not kept", format)
		}
		rest := res.Bytes()
		if format != Snapshot && format != Stream {
			rest = rest[prefix:]
		}
		for l := range jsonline.Lines(rest) {
			if l.Blank() || jsonline.IsConflictMarker(l.Raw) {
				t.Fatalf("%s: the result has the line %q", format, l.Raw)
			}
		}
	})
}
