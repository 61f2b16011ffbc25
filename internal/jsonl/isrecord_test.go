package jsonl

import (
	"testing"

	"github.com/git-queen/git-queen/internal/jsonline"
)

// isRecord must give lineKey's verdict on every line, or a compaction
// would drop what a read keeps.
func TestIsRecordAgreesWithLineKey(t *testing.T) {
	keys := []string{"id", "updated_at"}
	for _, raw := range []string{
		`{"id":"a"}`, `{"id":""}`, `{"id":"\u0061"}`, `{"id":"\"\""}`, `{"id":null}`, `{"id":7}`,
		`{"id":["a"]}`, `{"other":"a"}`, `{}`, `["id","a"]`, `"a"`, `{"id":"a"`, `{"id":"a"} x`,
		`<<<<<<< HEAD`, `=======`, `>>>>>>> theirs`, `not json`, `{"id":"a","id":""}`, `{"id":"","id":"b"}`,
		`{"\u0069d":"escaped key"}`, `{"id":"tab	inside"}`, `{"id":"a","updated_at":"2026-11-01T00:00:00Z"}`,
	} {
		for _, terminated := range []bool{true, false} {
			line := jsonline.Line{No: 1, Raw: []byte(raw), Terminated: terminated}
			_, problem := lineKey(line, keys, make([][]byte, len(keys)))
			if got := isRecord(line, keys, make([][]byte, len(keys))); got != (problem == "") {
				t.Errorf("isRecord(%s) = %v, lineKey says %q", raw, got, problem)
			}
		}
	}
}
