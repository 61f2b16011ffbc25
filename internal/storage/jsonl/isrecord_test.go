package jsonl

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// lineKey and isRecord give one verdict, and lineKey says why it refuses.
func TestLineKeyVerdicts(t *testing.T) {
	keys := []string{"id", "updated_at"}
	for _, tt := range []struct {
		raw, id, why string // why: part of lineKey's message; "" for a record
	}{
		{`{"id":"a"}`, "a", ""},
		{`{"id":"\u0061"}`, "a", ""},
		{`{"id":"\"\""}`, `""`, ""},
		{`{"\u0069d":"escaped key"}`, "escaped key", ""},
		{`{"id":"","id":"b"}`, "b", ""},
		{`{"id":"a","updated_at":"2026-11-01T00:00:00Z"}`, "a", ""},
		{`{"id":""}`, "", "not a non-empty string"},
		{`{"id":"a","id":""}`, "", "not a non-empty string"},
		{`{"id":null}`, "", "not a non-empty string"},
		{`{"id":7}`, "", "not a non-empty string"},
		{`{"id":["a"]}`, "", "not a non-empty string"},
		{`{"other":"a"}`, "", `no "id" field`},
		{`{}`, "", `no "id" field`},
		{`["id","a"]`, "", "not a JSON object"},
		{`"a"`, "", "not a JSON object"},
		{`{"id":"a"`, "", "invalid JSON"},
		{`{"id":"a"} x`, "", "invalid JSON"},
		{`not json`, "", "invalid JSON"},
		{`{"id":"tab	inside"}`, "", "control character"},
		{`<<<<<<< HEAD`, "", "conflict marker"},
		{`=======`, "", "conflict marker"},
		{`>>>>>>> theirs`, "", "conflict marker"},
	} {
		for _, terminated := range []bool{true, false} {
			line := jsonline.Line{No: 1, Raw: []byte(tt.raw), Terminated: terminated}
			id, problem := lineKey(line, keys, make([][]byte, len(keys)))
			record := isRecord(line, keys, make([][]byte, len(keys)))
			switch {
			case record != (tt.why == ""):
				t.Errorf("isRecord(%s) = %v", tt.raw, record)
			case tt.why == "" && (id != tt.id || problem != ""):
				t.Errorf("lineKey(%s) = %q, %q; want the record %q", tt.raw, id, problem, tt.id)
			case tt.why != "" && (id != "" || !strings.Contains(problem, tt.why) && !(strings.Contains(problem, "incomplete last line") && !terminated)):
				t.Errorf("lineKey(%s, terminated %v) = %q, %q; want a problem saying %q", tt.raw, terminated, id, problem, tt.why)
			}
		}
	}
}
