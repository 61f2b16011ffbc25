package st

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// stream is the seed's example grown into a small history.
const stream = `{"v":3,"ts":"2026-02-09T19:58:00Z","seq":38,"lane":"event","op":"init"}
{"v":3,"ts":"2026-02-09T19:58:30Z","seq":39,"lane":"event","op":"replace_all","items":[{"id":"st-001","step":"Reproduce issue","status":"pending","deps":[]},{"id":"st-002","step":"Fix","status":"pending","deps":[{"id":"st-001"}],"owner":"tk"}]}
{"v":3,"ts":"2026-02-09T19:59:00Z","seq":40,"lane":"event","op":"set_status","id":"st-001","status":"completed"}
{"v":3,"ts":"2026-02-09T20:00:00Z","seq":41,"lane":"event","op":"set_status","id":"st-002","status":"in_progress"}
{"v":3,"ts":"2026-02-09T20:01:00Z","seq":41,"lane":"checkpoint","items":[{"id":"st-001","step":"Reproduce issue","status":"completed","deps":[],"notes":"","comments":[]},{"id":"st-002","step":"Fix","status":"in_progress","deps":[{"id":"st-001","type":"blocks"}],"notes":"","comments":[],"owner":"tk"}]}
{"v":3,"ts":"2026-02-09T20:02:00Z","seq":42,"lane":"event","op":"upsert_item","item":{"id":"st-003","step":"Document v3 protocol","status":"pending","deps":[{"id":"st-002","type":""}]}}
{"v":3,"ts":"2026-02-09T20:03:00Z","seq":43,"lane":"event","op":"add_comment","id":"st-003","comment":{"ts":"2026-02-09T20:02:00Z","author":"tk","text":"Needs review"}}
{"v":3,"ts":"2026-02-09T20:04:00Z","seq":44,"lane":"event","op":"set_notes","id":"st-003","notes":"Capture rollout caveats"}
`

func TestReplayAndContract(t *testing.T) {
	recs, errs := Parse([]byte(stream))
	if len(errs) != 0 || len(recs) != 8 {
		t.Fatalf("parse: %d records, %v", len(recs), errs)
	}
	full, errs := Replay(recs)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	fast, _ := ReplayFromCheckpoint(recs)
	if !full.Equal(fast) {
		t.Fatalf("full %+v\nfast %+v", full, fast)
	}
	if err := CheckContract(recs); err != nil {
		t.Fatal(err)
	}
	if len(full.Items) != 3 || full.Items[2].Deps[0].Type != "blocks" || full.Items[2].Notes != "Capture rollout caveats" ||
		len(full.Items[2].Comments) != 1 || string(full.Items[1].Extra["owner"]) != `"tk"` {
		t.Fatalf("state %+v", full.Items)
	}
	if Watermark(recs) != 44 || TrailingEvents(recs) != 3 || NeedsCheckpoint(recs, 4) || !NeedsCheckpoint(recs, 3) {
		t.Fatalf("watermark %d, trailing %d", Watermark(recs), TrailingEvents(recs))
	}

	// A checkpoint of the current state keeps the contract and resets the
	// trailing count; its items round-trip, unknown fields included.
	line, err := CheckpointLine(full, Watermark(recs), time.Date(2026, 2, 9, 20, 5, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	withCP, errs := Parse([]byte(stream + string(line) + "\n"))
	if len(errs) != 0 || CheckContract(withCP) != nil || TrailingEvents(withCP) != 0 {
		t.Fatalf("after checkpoint: %v %v", errs, CheckContract(withCP))
	}
	if !strings.Contains(string(line), `"owner":"tk"`) {
		t.Fatalf("unknown item field lost: %s", line)
	}
}

func TestBrokenContractIsReported(t *testing.T) {
	stale := strings.Replace(stream, `"status":"in_progress","deps":[{"id":"st-001","type":"blocks"}]`,
		`"status":"pending","deps":[{"id":"st-001","type":"blocks"}]`, 1)
	recs, _ := Parse([]byte(stale))
	if err := CheckContract(recs); err == nil || !strings.Contains(err.Error(), "line 5") {
		t.Fatalf("stale checkpoint not reported: %v", err)
	}
}

func TestParseErrorsAndApplyErrors(t *testing.T) {
	data := `{"v":2,"ts":"x","seq":1,"lane":"event","op":"init"}
{"v":3,"ts":"x","seq":-1,"lane":"event","op":"init"}
{"v":3,"ts":"x","seq":1,"lane":"event"}
{"v":3,"ts":"x","seq":1,"lane":"checkpoint"}
not json
{"v":3,"ts":"x","seq":2,"lane":"event","op":"set_status","id":"st-404","status":"done"}
{"v":3,"ts":"x","seq":3,"lane":"event","op":"frobnicate","id":"st-404"}
`
	recs, errs := Parse([]byte(data))
	if len(errs) != 5 || len(recs) != 2 {
		t.Fatalf("parse: %d records, errors %v", len(recs), errs)
	}
	_, applyErrs := Replay(recs)
	if len(applyErrs) != 2 || !strings.Contains(applyErrs[0].Error(), `no item "st-404"`) ||
		!strings.Contains(applyErrs[1].Error(), "unknown op") {
		t.Fatalf("apply errors: %v", applyErrs)
	}
}

func TestLooksLikeStream(t *testing.T) {
	for line, want := range map[string]bool{
		`{"v":3,"ts":"x","seq":1,"lane":"event","op":"init"}`: true,
		`{"v":3,"seq":1,"lane":"checkpoint","items":[]}`:      true,
		`{"v":2,"seq":1,"lane":"event"}`:                      false,
		`{"id":"qm-1"}`:                                       false,
		`{"v":3,"lane":"event"}`:                              false,
	} {
		if LooksLikeStream([]byte(line)) != want {
			t.Errorf("LooksLikeStream(%s) != %v", line, want)
		}
	}
}

// A member whose name matches a field only when case is ignored is another
// member, as the schema and every non-Go reader see it: encoding/json alone
// would read "Op":"remove" as the op and drop the item.
func TestFieldNamesAreExact(t *testing.T) {
	const head = `{"v":3,"ts":"2026-02-09T19:58:00Z","seq":0,"lane":"event","op":"upsert","item":{"id":"a","step":"s","status":"pending","deps":[{"id":"b","type":"relates-to","ID":"c"}],"comments":[{"ts":"2026-02-09T19:58:00Z","author":"tk","Author":"mallory","text":"hi"}]}}` + "\n"
	for _, tc := range []struct{ name, line, want string }{
		{"op", `{"v":3,"ts":"2026-02-09T19:58:01Z","seq":1,"lane":"event","op":"set_notes","id":"a","notes":"kept","Op":"remove"}`,
			`a pending b:relates-to tk notes=kept`},
		{"status", `{"v":3,"ts":"2026-02-09T19:58:01Z","seq":1,"lane":"event","op":"set_status","id":"a","status":"completed","STATUS":"blocked"}`,
			`a completed b:relates-to tk notes=`},
		{"seq", `{"v":3,"ts":"2026-02-09T19:58:01Z","seq":1,"lane":"event","op":"set_notes","id":"a","notes":"x","Seq":-1}`,
			`a pending b:relates-to tk notes=x`},
	} {
		recs, errs := Parse([]byte(head + tc.line + "\n"))
		if len(errs) != 0 {
			t.Errorf("%s: %v", tc.name, errs)
			continue
		}
		s, _ := Replay(recs)
		var got []string
		for _, it := range s.Items {
			got = append(got, fmt.Sprintf("%s %s %s:%s %s notes=%s", it.ID, it.Status, it.Deps[0].ID, it.Deps[0].Type, it.Comments[0].Author, it.Notes))
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("%s: plan %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A checkpoint holds the plan as the events left it: fields of an edge or a
// comment that the seed does not name (a newer st's) are kept, as an
// item's are, or a replay from the checkpoint loses them.
func TestCheckpointKeepsEdgeAndCommentFields(t *testing.T) {
	data := `{"v":3,"ts":"2026-02-09T19:58:00Z","seq":0,"lane":"event","op":"upsert","item":{"id":"a","step":"s","status":"pending","deps":[]}}
{"v":3,"ts":"2026-02-09T19:58:01Z","seq":1,"lane":"event","op":"upsert","item":{"id":"b","step":"s","status":"pending","deps":[{"id":"a","type":"relates-to","since":"v2"}],"comments":[{"ts":"2026-02-09T19:58:00Z","author":"tk","text":"hi","id":"c1","reactions":["+1"]}]}}
{"v":3,"ts":"2026-02-09T19:58:02Z","seq":2,"lane":"event","op":"add_comment","id":"b","comment":{"ts":"2026-02-09T19:58:02Z","author":"tk","text":"again","edited":true}}
`
	recs, _ := Parse([]byte(data))
	full, _ := Replay(recs)
	line, err := CheckpointLine(full, 2, time.Date(2026, 2, 9, 20, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"id":"a","type":"relates-to","since":"v2"}`,
		`{"ts":"2026-02-09T19:58:00Z","author":"tk","text":"hi","id":"c1","reactions":["+1"]}`,
		`{"ts":"2026-02-09T19:58:02Z","author":"tk","text":"again","edited":true}`} {
		if !strings.Contains(string(line), want) {
			t.Errorf("checkpoint lost %s:\n%s", want, line)
		}
	}
}
