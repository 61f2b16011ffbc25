package ledgersync

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
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
		got, err := newestOnly(nil, records.MessagesFile, c.in, a, nil, now)
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
// tool may write (an offset, an escaped key, a time field the log does
// not define, no updated_at at all).
func TestVetReadsWhatVersionOfReads(t *testing.T) {
	id := ids.NewMessage()
	base := `"id":"` + id + `","created_at":"2026-11-01T00:00:00Z","from":"ann","to":"bob","subject":"s","body":"b","importance":"normal","read":false`
	lines := [][]byte{
		[]byte(`{` + base + `,"updated_at":"2026-11-04T10:00:00.5+02:00"}`),
		[]byte(`{` + base + `,"updat\u0065d_at":"2026-11-04T10:00:00Z"}`),
		[]byte(`{` + base + `,"updated_at":"2026-11-04T10:00:00Z","released_at":"2026-11-09T00:00:00Z"}`),
		[]byte(`{` + base + `,"released_at":"2026-11-09T00:00:00Z"}`),
		[]byte(`{` + base + `,"read_at":"2026-11-03T00:00:00Z"}`),
		[]byte(`{` + base + `,"updated_at":null}`),
		[]byte(`{` + base + `}`),
	}
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	got := vet(records.MessagesFile, lines, now)
	for i, line := range lines {
		wantID, wantKey, ok := versionOf(line)
		if got[i].rule != "" || !ok || got[i].id != wantID || records.TimeKey(got[i].at) != wantKey {
			t.Errorf("%s: vet read %q %q (%s), versionOf %q %q", line, got[i].id, records.TimeKey(got[i].at), got[i].rule, wantID, wantKey)
		}
	}
}
