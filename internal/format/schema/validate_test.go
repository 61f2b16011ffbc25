package schema

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

func messageLine(i int, subject string) string {
	return fmt.Sprintf(`{"id":"qm-01HZ1A2B3C4D5E6F7G8H9J%04d","created_at":"2026-02-09T20:00:00Z","from":"alice","to":"bob","subject":%q,"body":"b","importance":"low","read":false}`, i, subject)
}

// A large log is validated in parallel chunks; the problems, their line
// numbers and the counts must be those of a single pass.
func TestParallelEqualsSequential(t *testing.T) {
	var b strings.Builder
	for i := range 9000 {
		subject := "ok"
		if i%700 == 0 {
			subject = strings.Repeat("x", 101)
		}
		b.WriteString(messageLine(i, subject) + "\n")
		if i == 4321 {
			b.WriteString("not json\n")
		}
		if i == 5000 {
			b.WriteString(messageLine(17, "ok") + "\r\n")
		}
	}
	data := []byte(b.String())
	if n := len(splitChunks(data, 4)); n != 4 {
		t.Fatalf("test data of %d bytes is split in %d chunks, want 4", len(data), n)
	}
	seq := Validate(formats[0], "m.jsonl", data, Options{Workers: 1, Limit: -1})
	par := Validate(formats[0], "m.jsonl", data, Options{Workers: 4, Limit: -1})
	if !slices.Equal(seq.Problems, par.Problems) || seq.Records != par.Records || seq.Records != 9002 {
		t.Fatalf("sequential %d problems / %d records, parallel %d / %d", len(seq.Problems), seq.Records, len(par.Problems), par.Records)
	}
	var rules []string
	for _, p := range seq.Problems {
		rules = append(rules, fmt.Sprintf("%d:%s", p.Line, p.Rule))
	}
	want := []string{"1:maxLength", "701:maxLength", "1401:maxLength", "2101:maxLength", "2801:maxLength", "3501:maxLength",
		"4201:maxLength", "4323:syntax", "4902:maxLength", "5003:duplicate-line", "5603:maxLength", "6303:maxLength",
		"7003:maxLength", "7703:maxLength", "8403:maxLength"}
	if !slices.Equal(rules, want) {
		t.Errorf("problems %v\nwant %v", rules, want)
	}
}

func TestLimit(t *testing.T) {
	var b bytes.Buffer
	for i := range 10 {
		fmt.Fprintf(&b, "nope %d\n", i)
	}
	for _, tt := range []struct{ limit, listed, omitted int }{{0, 10, 0}, {3, 3, 7}, {-1, 10, 0}, {50, 10, 0}} {
		r := Validate(formats[0], "m.jsonl", b.Bytes(), Options{Limit: tt.limit})
		if len(r.Problems) != tt.listed || r.Omitted != tt.omitted || r.Valid() {
			t.Errorf("limit %d: %d listed, %d omitted", tt.limit, len(r.Problems), r.Omitted)
		}
		if r.Problems[0].Line != 1 || r.Problems[len(r.Problems)-1].Line != len(r.Problems) {
			t.Errorf("limit %d: not the first problems in file order", tt.limit)
		}
	}
}

func TestValidateFileUnknownAndForced(t *testing.T) {
	r := ValidateFile("notes.txt", []byte("hello"), Options{})
	if !r.Skipped() || !r.Valid() {
		t.Errorf("unknown file: %+v", r)
	}
	r = ValidateFile("notes.txt", []byte("hello"), Options{Format: "nope"})
	if r.Valid() || r.Problems[0].Rule != RuleUnknownFormat {
		t.Errorf("unknown forced format: %+v", r)
	}
	r = ValidateFile("notes.txt", []byte(messageLine(1, "s")+"\n"), Options{Format: "queen-message"})
	if !r.Valid() || r.Format != "queen-message" || r.Records != 1 {
		t.Errorf("forced format: %+v", r)
	}
}

func TestHugeLine(t *testing.T) {
	body := strings.Repeat("a", 3<<20)
	line := strings.Replace(messageLine(1, "s"), `"body":"b"`, `"body":"`+body+`"`, 1)
	r := ValidateFile(".beads/queen_messages.jsonl", []byte(line+"\n"+messageLine(2, strings.Repeat("y", 101))+"\n"), Options{})
	if len(r.Problems) != 1 || r.Problems[0].Line != 2 || r.Problems[0].Rule != "maxLength" {
		t.Errorf("huge line: %+v", r.Problems)
	}
}

func TestProblemString(t *testing.T) {
	for _, tt := range []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "a.jsonl", Line: 3, Field: "subject", Message: "is too long"}, "a.jsonl:3: subject: is too long"},
		{Problem{Path: "a.jsonl", Line: 3, Message: "not valid JSON"}, "a.jsonl:3: not valid JSON"},
		{Problem{Path: "a.json", Message: "x"}, "a.json: x"},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
}

func TestSchemasCompileAndList(t *testing.T) {
	names := Names()
	if len(names) != 18 {
		t.Errorf("%d schemas: %v", len(names), names)
	}
	for _, n := range names {
		if _, err := Compiled(n); err != nil {
			t.Error(err)
		}
		if _, err := interpRoot(n); err != nil { // git-queen's own subset
			t.Error(err)
		}
		if Title(n) == "" {
			t.Errorf("schema %s has no title", n)
		}
	}
	for _, f := range formats {
		if f.Schema != "" && !slices.Contains(names, f.Schema) {
			t.Errorf("format %s names missing schema %s", f.Name, f.Schema)
		}
	}
	if _, err := Source("nope"); err == nil || !strings.Contains(err.Error(), "queen-message") {
		t.Errorf("unknown schema error should list the names: %v", err)
	}
}

// A document's problems are found in schema order; the limit keeps the
// first ones by line.
func TestDocumentLimitKeepsFirstLines(t *testing.T) {
	doc := "{\n  \"43\": {},\n  \"42\": {\n    \"review_passed\": true,\n    \"qa_passed\": false,\n    \"pr_number\": 1\n  }\n}\n"
	r := ValidateFile("state/pipeline/42.json", []byte(doc), Options{Limit: 2})
	if len(r.Problems) != 2 || r.Omitted != 2 || r.Problems[0].Line != 2 || r.Problems[1].Line != 4 {
		t.Errorf("problems %v, omitted %d", r.Problems, r.Omitted)
	}
}

// Every snapshot file holds one line per id: a repeated id is reported.
func TestSnapshotsReportARepeatedID(t *testing.T) {
	wo := func(title string) string {
		return fmt.Sprintf(`{"id":"wo-a","title":%q,"status":"open","priority":2,"issue_type":"task","created_at":"2026-01-06T10:00:00.000Z","updated_at":"2026-01-06T10:00:00.000Z","created_by":"ceo"}`, title)
	}
	msg := func(body string) string {
		return fmt.Sprintf(`{"id":"msg-1","from":"a","to":"b","subject":"s","body":%q,"timestamp":"2026-01-06T12:00:00.000Z"}`, body)
	}
	issue := func(title string) string {
		return fmt.Sprintf(`{"id":"bd-1","title":%q,"status":"open","priority":2,"issue_type":"task","created_at":"2026-01-06T10:00:00Z","updated_at":"2026-01-06T10:00:00Z"}`, title)
	}
	for _, tt := range []struct{ path, a, b string }{
		{".work/work_orders.jsonl", wo("one"), wo("two")},
		{".work/messages.jsonl", msg("one"), msg("two")},
		{".beads/issues.jsonl", issue("one"), issue("two")},
	} {
		res := ValidateFile(tt.path, []byte(tt.a+"\n"+tt.b+"\n"), Options{})
		found := false
		for _, p := range res.Problems {
			found = found || p.Rule == RuleDuplicateID
		}
		if res.Skipped() || !found {
			t.Errorf("%s: no %s problem in %+v", tt.path, RuleDuplicateID, res.Problems)
		}
	}
}

// Each field of a JSON document is placed on the line of its key, or in an
// array on the line of its first token; an empty key is a key like any
// other (it once took the value after it for a key, and a document such
// as {"": {}} crashed validate).
func TestJSONFieldLines(t *testing.T) {
	doc := []byte("{\"\": {\"a\": 1},\n \"b\": [1,\n  {\"\": 2}, [\n  3]],\n \"c\": \"\",\n \"d.e\": {\"f\":\n  null}}")
	want := map[string]int{"": 1, "a": 1, "b": 2, "b[0]": 2, "b[1]": 3, "b[1].": 3, "b[2]": 3, "b[2][0]": 4,
		"c": 5, "d.e": 6, "d.e.f": 6}
	if got := jsonFieldLines(doc); !maps.Equal(got, want) {
		t.Errorf("jsonFieldLines = %v, want %v", got, want)
	}
	f, _ := Lookup("json")
	if r := Validate(f, "x.json", []byte(`{"": {"": {}}}`), Options{}); !r.Valid() {
		t.Errorf("a document of empty keys: %v", r.Problems)
	}
}

// JSON text is UTF-8: a line with another byte is reported where it is,
// whatever else is wrong with it or not.
func TestInvalidUTF8IsSyntax(t *testing.T) {
	for _, tc := range []struct{ format, line, want string }{
		{"queen-message", strings.Replace(messageLine(1, "ok"), `"alice"`, "\"ali\xffce\"", 1), "1 syntax byte 85"},
		{"st", "{\"v\":3,\"ts\":\"2026-02-09T19:58:00Z\",\"seq\":0,\"lane\":\"event\",\"op\":\"init\",\"x\":\"\xc3\"}", "1 syntax byte 75"},
		{"vermas-route", "{\"prefix\":\"wo\",\"path\":\"/p/\xe2\x82.work\"}", "1 syntax byte 26"},
	} {
		f, _ := Lookup(tc.format)
		r := Validate(f, "x.jsonl", []byte(tc.line+"\n"), Options{Limit: -1})
		var got []string
		for _, p := range r.Problems {
			got = append(got, fmt.Sprintf("%d %s %s", p.Line, p.Rule, p.Message))
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "1 syntax") || !strings.Contains(got[0], "("+tc.want[9:]+")") {
			t.Errorf("%s: problems %q, want one %q", tc.format, got, tc.want)
		}
	}
}
