package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// waiting is a version the export leaves out: a place in the queue for
// paths (exportQuery keeps no version whose status is "waiting").
func waiting(line string) string {
	return strings.TrimSuffix(line, "}") + `,"status":"waiting"}`
}

// presence is a version of a droid's presence record (records.PresenceField),
// which the export leaves out whatever its id.
func presence(line string) string {
	return strings.TrimSuffix(line, "}") + `,"presence":{"worktree":"w"}}`
}

// The export keeps each source's current version of an id when the
// filter keeps it. An export by mark must judge the id by the source's
// current version, wherever it lies, not by the newest line appended
// since the mark: a stale line appended after a newer one, or a newer one
// the filter drops, changes what a full export writes and counts.
func TestExportByMarkFiltersEachSourcesCurrentVersion(t *testing.T) {
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name          string
		before, after []string // lines of the local log before and after the first export
		received      []string // lines of the received log after the first export
		// full says the export must read the sources whole: the current
		// version of an id is a line the full export skips.
		full bool
	}{
		{"a stale version the filter keeps, after a newer one it drops",
			[]string{message(0, base, "kept"), waiting(message(1, base.Add(time.Hour), "dropped"))},
			[]string{message(1, base, "stale, kept")}, nil, false},
		{"a newer version the filter drops, of a record the file holds",
			[]string{message(0, base, "kept"), message(1, base, "kept")},
			[]string{waiting(message(1, base.Add(time.Hour), "dropped"))}, nil, false},
		{"a newer version the filter drops, then a stale one it keeps",
			[]string{message(0, base, "kept"), message(1, base, "kept")},
			[]string{waiting(message(1, base.Add(time.Hour), "dropped")), message(1, base.Add(time.Minute), "stale, kept")}, nil, false},
		{"a version the filter keeps, of a record it dropped",
			[]string{message(0, base, "kept"), waiting(message(1, base, "dropped"))},
			[]string{message(1, base.Add(time.Hour), "kept now")}, nil, false},
		{"a newer presence version of a record's id (crafted: presence ids are their own)",
			[]string{message(0, base, "kept"), message(1, base, "kept")},
			[]string{presence(message(1, base.Add(time.Hour), "presence")), message(1, base.Add(time.Minute), "stale, kept")}, nil, true},
		{"a newer version one source drops, an older one another source keeps",
			[]string{message(0, base, "kept"), message(1, base, "kept")},
			[]string{waiting(message(1, base.Add(time.Hour), "dropped"))},
			[]string{message(1, base.Add(time.Minute), "received, kept")}, false},
		{"a stale version one source keeps, the newer one another drops",
			[]string{message(0, base, "kept")},
			[]string{message(1, base, "stale, kept")},
			[]string{waiting(message(1, base.Add(time.Hour), "received, dropped")), message(2, base, "received")}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newExportTwin(t)
			local := x.s.Log(records.MessagesFile).Path
			received := ReceivedPath(x.s.WS, records.MessagesFile)
			x.appendSource(local, true, c.before...)
			x.appendSource(received, true, message(5, base, "received first"))
			x.export("first")
			before := x.byMark
			x.appendSource(local, true, c.after...)
			x.appendSource(received, true, c.received...)
			x.export(c.name) // compares with the full export
			if byMark := x.byMark == before+1; byMark == c.full {
				t.Fatalf("the export read only what was appended: %v, want %v", byMark, !c.full)
			}
		})
	}
}

// Random appends of versions the filter keeps and drops (and presence
// records, and versions validate refuses), new, newer and stale, to both sources, ours and another program's, with exports
// between: each export by mark writes and counts what the full one does.
func TestExportByMarkFiltersAsTheFullExportDoes(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 27))
			x := newExportTwin(t)
			sources := []string{x.s.Log(records.MessagesFile).Path, ReceivedPath(x.s.WS, records.MessagesFile)}
			base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			for i, src := range sources {
				x.appendSource(src, true, message(i, base, "first"))
			}
			x.export("first")
			for step := range 80 {
				at := base.Add(time.Duration(rng.IntN(200)-50) * time.Minute) // newer and stale alike
				line := message(rng.IntN(8), at, fmt.Sprint("step ", step))
				switch rng.IntN(6) {
				case 0, 1:
					line = waiting(line)
				case 2: // a droid's presence, under an id of its own
					line = presence(message(100+rng.IntN(3), at, fmt.Sprint("step ", step)))
				case 3: // one validate refuses, which an older sync took in
					line = strings.Replace(line, `"to":"bob"`, `"to":"@all"`, 1)
				}
				x.appendSource(sources[rng.IntN(2)], rng.IntN(5) != 0, line)
				if rng.IntN(2) == 0 {
					x.export(fmt.Sprintf("step %d: %s", step, line))
				}
			}
			x.export("last")
			if x.byMark == 0 {
				t.Fatal("no export read only what was appended")
			}
		})
	}
}

// A version validate refuses, which a sync before sync set such lines
// aside took into a received log, is left out and named, by the export by
// mark and the full export alike: written, it made the pre-commit hook
// refuse every commit of the export. The file keeps what it had of the id.
func TestExportLeavesOutAVersionValidateRefuses(t *testing.T) {
	x := newExportTwin(t)
	received := ReceivedPath(x.s.WS, records.MessagesFile)
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	notUTF8 := strings.Replace(message(2, base, "BODY"), "BODY", "caf\xe9", 1)
	toAll := strings.Replace(message(1, base.Add(time.Hour), "to all"), `"to":"bob"`, `"to":"@all"`, 1)
	withheld := func(st ExportStats, id int, rule string) {
		t.Helper()
		want := Withheld{ID: fmt.Sprintf("qm-01KB000000000000000000%04d", id), Rule: rule, KeptIn: received}
		if len(st.Withheld) != 1 || st.Withheld[0].ID != want.ID || st.Withheld[0].Rule != rule || st.Withheld[0].KeptIn != received {
			t.Fatalf("withheld %+v, want %+v", st.Withheld, want)
		}
	}
	x.appendSource(x.s.Log(records.MessagesFile).Path, true, message(3, base, "local"))
	x.appendSource(received, true, message(1, base, "good"), notUTF8) // as an older sync wrote them
	st := x.export("a full export")
	withheld(st, 2, "json")
	if st.Written != 2 {
		t.Fatalf("a full export: %+v", st)
	}
	exported, _ := os.ReadFile(x.target(x.inc))
	x.appendSource(received, true, toAll)
	before := x.byMark
	if st = x.export("a bad version appended"); st.Written != 0 || x.byMark != before+1 {
		t.Fatalf("a bad version appended: %+v, by mark %v", st, x.byMark != before)
	}
	withheld(st, 1, "droid")
	if now, _ := os.ReadFile(x.target(x.inc)); !bytes.Equal(now, exported) {
		t.Fatalf("the file changed:\n%s", now)
	}
	// An export before this one wrote the line; git restore takes it out
	// of the file, and the next export does not write it again.
	for _, dir := range []string{x.inc, x.full} {
		appendRaw(t, x.target(dir), notUTF8)
		rewrite(t, x.target(dir), func(b []byte) []byte { return firstLines(b, 2) })
	}
	if st = x.export("the file restored"); st.Written != 0 || len(st.Withheld) != 2 {
		t.Fatalf("the file restored: %+v", st)
	}
	x.appendSource(received, true, message(2, base.Add(time.Hour), "good again"))
	if st = x.export("a good version after"); st.Written != 1 || len(st.Withheld) != 0 {
		t.Fatalf("a good version after: %+v", st)
	}
}
