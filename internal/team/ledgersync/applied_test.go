package ledgersync

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// Only an id spelled as its ULID's own text is held by its 16 bytes: the
// same ULID in lower case, or under another prefix, is another record.
func TestAppliedKeepsIDsApart(t *testing.T) {
	id := ids.NewMessage()
	prefix, _, _ := ids.Parse(id)
	lower := prefix + strings.ToLower(id[len(prefix):])
	other := "qx-" + id[len(prefix):]
	cases := []struct {
		id        string
		canonical bool
	}{
		{id, true}, {lower, false}, {other, true}, {"plain", false}, {prefix + "01", false}, {"", false},
	}
	a := newApplied()
	for i, c := range cases {
		if got := splitID(c.id).canonical; got != c.canonical {
			t.Errorf("splitID(%q).canonical = %v, want %v", c.id, got, c.canonical)
		}
		a.set(c.id, splitID(c.id), stamp{sec: int64(i + 1)})
	}
	for i, c := range cases {
		if got, ok := a.at(c.id, splitID(c.id)); !ok || got.sec != int64(i+1) {
			t.Errorf("%q: %v %v, want its own time %d", c.id, got, ok, i+1)
		}
	}
	if _, ok := a.at(ids.NewMessage(), splitID(ids.NewMessage())); ok {
		t.Error("an id never set has a time")
	}
}

// One scan reads what two did: the id and records.VersionKey, on the
// lines a remote can craft.
func TestVersionReaderReadsWhatVersionKeyReads(t *testing.T) {
	lines := []string{
		`{"id":"qm-1","created_at":"2026-11-03T00:00:00Z"}`,
		`{"id":"qm-1","created_at":"2026-11-03T00:00:00Z","updated_at":"2026-11-04T00:00:00.123456789+02:00"}`,
		`{"id":"qm-1","updated_at":"not a time","read_at":"2026-11-05T00:00:00Z","created_at":"2026-11-03T00:00:00Z"}`,
		`{"id":"qm-1","updated_at":null,"released_at":"2026-11-06T00:00:00Z"}`,
		`{"id":"qm-1","updated_at":"2026-11-04T00:00:00Z","updated_at":"2026-11-09T00:00:00Z"}`,
		`{"\u0069d":"qm-2","updat\u0065d_at":"2026-11-04T00:00:00Z"}`,
		`{"id":"qm-1","x":{"updated_at":"2026-11-04T00:00:00Z"}}`,
		`{"id":"qm 1","updated_at":"2026-11-04T00:00:00Z"}`,
		`{"id":7,"updated_at":"2026-11-04T00:00:00Z"}`,
		`{"id":"qm-1","updated_at":"0001-01-01T00:00:00Z"}`,
		`{"id":"qm-1","updated_at":"9999-12-31T23:59:59.999999999Z"}`,
		`["qm-1"]`, `{"id":"qm-1",`, ``,
	}
	r := newVersionReader()
	for _, line := range lines {
		id, at, ok := r.of([]byte(line))
		wantKey := records.VersionKey([]byte(line))
		wantID, wantOK := "", false
		if v := make([][]byte, 1); jsonline.ObjectFields([]byte(line), []string{"id"}, v) == nil {
			if s, isString := jsonline.String(v[0]); isString && s != "" && !strings.ContainsAny(s, " \n") {
				wantID, wantOK = s, wantKey != ""
			}
		}
		if ok != wantOK || ok && (id != wantID || records.TimeKey(at) != wantKey) {
			t.Errorf("%s: %q %q %v, want %q %q %v", line, id, records.TimeKey(at), ok, wantID, wantKey, wantOK)
		}
	}
}

// newestOnly with the applied set of a merge: a later chunk's older
// version of a record already applied stays out, an equal time goes in
// (readers decide by the bytes), and each record is judged by its own id.
func TestNewestOnlyAcrossChunks(t *testing.T) {
	id := ids.NewMessage()
	prefix, _, _ := ids.Parse(id)
	lower := prefix + strings.ToLower(id[len(prefix):])
	at := func(day int, id, subject string) []byte {
		ts := time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
		return fmt.Appendf(nil, `{"id":%q,"created_at":"2026-11-01T00:00:00Z","updated_at":%q,"from":"ann","to":"bob","subject":%q,"body":"b","importance":"normal","read":false,"updated_by":"ann"}`, id, ts, subject)
	}
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	a := newApplied()
	chunks := []struct {
		in   [][]byte
		want []string
	}{
		{[][]byte{at(5, id, "a"), at(3, id, "b")}, []string{"a"}},
		{[][]byte{at(4, id, "c"), at(2, lower, "d")}, []string{"d"}},
		{[][]byte{at(5, id, "e"), at(6, lower, "f")}, []string{"e", "f"}},
		{[][]byte{at(5, id, "a")}, []string{"a"}},
		{[][]byte{at(1, lower, "g"), at(7, id, "h")}, []string{"h"}},
	}
	for i, c := range chunks {
		got, err := newestOnly(records.MessagesFile, c.in, a, nil, now)
		if err != nil {
			t.Fatal(err)
		}
		var subjects []string
		for _, line := range got {
			subjects = append(subjects, string(line[strings.Index(string(line), `"subject":"`)+11]))
		}
		if strings.Join(subjects, ",") != strings.Join(c.want, ",") {
			t.Errorf("chunk %d: applied %v, want %v", i, subjects, c.want)
		}
	}
}

// vet takes a version's id and time from the rules' own reading of it
// where it can: the same id and time versionOf reads, on versions another
// tool may write (ten fraction digits, an escaped key, a time field the log does
// not define, no updated_at at all).
func TestVetReadsWhatVersionOfReads(t *testing.T) {
	id := ids.NewMessage()
	base := `"id":"` + id + `","created_at":"2026-11-01T00:00:00Z","from":"ann","to":"bob","subject":"s","body":"b","importance":"normal","read":false`
	lines := [][]byte{
		[]byte(`{` + base + `,"updated_at":"2026-11-04T08:00:00.5000000001Z"}`),
		[]byte(`{` + base + `,"updat\u0065d_at":"2026-11-04T10:00:00Z"}`),
		[]byte(`{` + base + `,"updated_at":"2026-11-04T10:00:00Z","released_at":"2026-11-09T00:00:00Z"}`),
		[]byte(`{` + base + `,"released_at":"2026-11-09T00:00:00Z"}`),
		[]byte(`{` + base + `,"read_at":"2026-11-03T00:00:00Z"}`),
		[]byte(`{` + base + `}`),
	}
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	// A null updated_at, which validate refuses in an export, breaks rule type.
	if got := vet(records.MessagesFile, [][]byte{[]byte(`{` + base + `,"updated_at":null}`)}, now); len(got.valid) != 0 ||
		len(got.broken) != 1 || got.broken[0].rule != records.RuleType {
		t.Errorf("vet of a null updated_at: %+v", got)
	}
	got := vet(records.MessagesFile, lines, now)
	if len(got.valid) != len(lines) || len(got.broken) != 0 {
		t.Fatalf("vet found %d of %d lines valid, and broken: %+v", len(got.valid), len(lines), got.broken)
	}
	for i, line := range lines {
		wantID, wantKey, ok := versionOf(line)
		if !ok || got.valid[i].id != wantID || records.TimeKey(got.valid[i].at) != wantKey {
			t.Errorf("%s: vet read %q %q, versionOf %q %q", line, got.valid[i].id, records.TimeKey(got.valid[i].at), wantID, wantKey)
		}
	}
}

// A merge holds only the current month's versions while every version sits
// in the month of its time, and everything it applied from the first one
// that does not: an older version misplaced in a later month stays out, as
// it did when the merge held every version throughout.
func TestScopedAppliedAcrossMonths(t *testing.T) {
	dir := t.TempDir()
	path := func(file string) string { return filepath.Join(dir, file) }
	msgTo := func(to, id string, at time.Time, subject string) []byte {
		return fmt.Appendf(nil, `{"id":%q,"created_at":"2026-01-01T00:00:00Z","updated_at":%q,"from":"ann","to":%q,"subject":%q,"body":"b","importance":"normal","read":false,"updated_by":"ann"}`,
			id, at.Format(time.RFC3339), to, subject)
	}
	msgAt := func(id string, at time.Time, subject string) []byte { return msgTo("bob", id, at, subject) }
	x, y := ids.NewMessage(), ids.NewMessage()
	oct20, oct5 := time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	nov2, nov5 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		chunks []ledger.Chunk
		want   string // the subjects applied, in order
	}{
		{"in their months", []ledger.Chunk{
			{File: records.MessagesFile, Month: "2026-10", Lines: [][]byte{msgAt(x, oct5, "a"), msgAt(y, oct20, "b")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(x, nov2, "c")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(x, nov5, "d"), msgAt(y, nov2, "e")}},
		}, "a,b,c,d,e"},
		{"an older version in a later month", []ledger.Chunk{
			{File: records.MessagesFile, Month: "2026-10", Lines: [][]byte{msgAt(x, oct20, "a")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(y, nov2, "b")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(x, oct5, "c"), msgAt(y, nov5, "d")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(y, nov2, "e")}},
		}, "a,b,d"},
		{"a newer version in an earlier month", []ledger.Chunk{
			{File: records.MessagesFile, Month: "2026-10", Lines: [][]byte{msgAt(x, nov5, "a")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(x, nov2, "b"), msgAt(y, nov2, "c")}},
		}, "a,c"},
		// Rule parties: a later version gives the message to carl.
		{"another recipient in the same month", []ledger.Chunk{
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(x, nov2, "a")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgTo("carl", x, nov5, "b"), msgAt(y, nov5, "c")}},
		}, "a,c"},
		{"another recipient in a later month", []ledger.Chunk{
			{File: records.MessagesFile, Month: "2026-10", Lines: [][]byte{msgAt(x, oct5, "a")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgTo("carl", x, nov2, "b"), msgAt(y, nov5, "c")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(x, nov5, "d")}},
		}, "a,c,d"},
		{"another recipient once a version left its month", []ledger.Chunk{
			{File: records.MessagesFile, Month: "2026-10", Lines: [][]byte{msgAt(x, oct20, "a")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(x, oct5, "b")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgTo("carl", x, nov2, "c")}},
			{File: records.MessagesFile, Month: "2026-11", Lines: [][]byte{msgAt(x, nov5, "d")}},
		}, "a,d"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			received := path(records.MessagesFile)
			os.WriteFile(received, []byte(`{"id":"`+x+`","updated_at":"2027-01-01T00:00:00Z"}`+"\n"), 0o644) // before the merge: not read
			sizes := map[string]int64{records.MessagesFile: sizeOf(received)}
			scoped := &scopedApplied{}
			var got []string
			for _, ch := range c.chunks {
				v := vet(ch.File, ch.Lines, now)
				if err := scoped.enter(ch, v, func() (*applied, error) { return appliedSince(sizes, path) }); err != nil {
					t.Fatal(err)
				}
				fresh, err := pickNewest(v, scoped.applied, nil)
				if err != nil {
					t.Fatal(err)
				}
				f, _ := os.OpenFile(received, os.O_APPEND|os.O_WRONLY, 0)
				for _, line := range fresh {
					f.Write(append(line, '\n'))
					got = append(got, string(line[strings.Index(string(line), `"subject":"`)+11]))
				}
				f.Close()
			}
			if strings.Join(got, ",") != c.want {
				t.Errorf("applied %s, want %s", strings.Join(got, ","), c.want)
			}
			if c.name == "in their months" && (scoped.whole || len(scoped.byULID["qm-"]) != 2) {
				t.Errorf("holds %d versions (whole: %v), want November's 2", len(scoped.byULID["qm-"]), scoped.whole)
			}
		})
	}
}

// Within one chunk, vet marks the newest version of each record (the
// later time, then the larger bytes, wherever it sits among the lines),
// and newestOnly keeps exactly those, each in its place, with the lines
// that carry no time; lines that break a rule are counted and left out.
func TestNewestOnlyWithinAChunk(t *testing.T) {
	x, y := ids.NewMessage(), ids.NewMessage()
	at := func(day int, id, subject string) []byte {
		ts := time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
		return fmt.Appendf(nil, `{"id":%q,"created_at":"2026-11-01T00:00:00Z","updated_at":%q,"from":"ann","to":"bob","subject":%q,"body":"b","importance":"normal","read":false,"updated_by":"ann"}`, id, ts, subject)
	}
	noTime := []byte(`{"id":"` + y + `","created_at":"2026-11-01T00:00:00Z","from":"ann","to":"bob","subject":"n","body":"b","importance":"normal","read":false}`)
	broken := []byte(`{"id":"` + x + `","created_at":"not a time"}`)
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		lines [][]byte
		want  string // subjects kept, in order
	}{
		{"newest last", [][]byte{at(3, x, "a"), at(5, x, "b")}, "b"},
		{"newest first", [][]byte{at(5, x, "a"), at(3, x, "b"), at(4, x, "c")}, "a"},
		{"a tie goes to the larger bytes", [][]byte{at(5, x, "b"), at(5, x, "a"), at(5, x, "c"), at(2, x, "d")}, "c"},
		{"records apart", [][]byte{at(5, x, "a"), at(3, y, "b"), at(4, y, "c"), at(1, x, "d")}, "a,c"},
		{"broken lines, and a version timed by created_at", [][]byte{broken, at(2, x, "a"), noTime, at(3, x, "b"), broken}, "n,b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			broke := map[string]*ruleCount{}
			got, err := newestOnly(records.MessagesFile, c.lines, newApplied(), broke, now)
			if err != nil {
				t.Fatal(err)
			}
			var subjects []string
			for _, line := range got {
				subjects = append(subjects, string(line[strings.Index(string(line), `"subject":"`)+11]))
			}
			if strings.Join(subjects, ",") != c.want {
				t.Errorf("kept %v, want %s", subjects, c.want)
			}
			n := 0
			for _, r := range broke {
				n += r.n
			}
			if want := strings.Count(string(joinLines(c.lines)), `"not a time"`); n != want {
				t.Errorf("%d lines counted as broken, want %d", n, want)
			}
		})
	}
}

func joinLines(lines [][]byte) []byte {
	var out []byte
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	return out
}

// vet is vetData for lines already split.
func vet(file string, lines [][]byte, now time.Time) vetting {
	return vetEach(file, slices.Values(lines), len(lines), now)
}

// newestOnly is pickNewest of lines as vet reads them.
func newestOnly(file string, lines [][]byte, applied *applied, broken map[string]*ruleCount, now time.Time) ([][]byte, error) {
	return pickNewest(vet(file, lines, now), applied, broken)
}

// What check and the hooks read of a fetched ledger holds rule parties
// among the versions the fetch brought, as a sync applies it: a clone
// that fetched ann's reservation and a later version giving it to carl
// together (a git fetch before its sync) took the paths for carl's, and
// carl's own check let him commit to them.
func TestUnfloodedKeepsAFetchedRecordsParties(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	res := func(id, droid string, at time.Time) []byte {
		return fmt.Appendf(nil, `{"id":%q,"created_at":"2026-11-27T10:00:00Z","updated_at":%q,"updated_by":%q,"expires_at":"2026-11-27T15:00:00Z","pattern":"docs/**","droid":%q,"status":"active","exclusive":true}`,
			id, at.Format(time.RFC3339), droid, droid)
	}
	x, y := fmt.Sprintf("qr-01KB%022d", 1), fmt.Sprintf("qr-01KB%022d", 2)
	lines := [][]byte{res(x, "carl", now.Add(-time.Hour)), res(x, "ann", now.Add(-2*time.Hour)), res(y, "bob", now.Add(-time.Hour))}
	got, err := unflooded(vet(records.ReservationsFile, lines, now), nil, object.ZeroID, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.Contains(string(got[0]), `"droid":"ann"`) || !strings.Contains(string(got[1]), `"droid":"bob"`) {
		t.Fatalf("kept %s; want ann's first version of %s and bob's %s", got, x, y)
	}
}
