package work

import (
	"slices"
	"strings"
	"testing"
)

// ids are the ids of items, in order.
func ids(items []Item) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func lines(l ...string) []byte { return []byte(strings.Join(l, "\n") + "\n") }

func TestReadBeadsDecidesOpenAndBlocked(t *testing.T) {
	tests := []struct {
		name        string
		data        []byte
		open        []string
		waiting     map[string][]string
		problems    int
		problemText string
	}{
		{name: "only open and blocked statuses are open work",
			data: lines(`{"id":"a","status":"open"}`, `{"id":"b","status":"in_progress"}`, `{"id":"c","status":"closed"}`,
				`{"id":"d","status":"blocked"}`, `{"id":"e","status":"deferred"}`, `{"id":"f"}`),
			open: []string{"a", "d", "f"}},
		{name: "a blocks dependency on an open issue blocks; on a closed one it does not",
			data: lines(`{"id":"a","status":"open","dependencies":[{"issue_id":"a","depends_on_id":"b","type":"blocks"}]}`,
				`{"id":"b","status":"open"}`,
				`{"id":"c","status":"open","dependencies":[{"depends_on_id":"d","type":"blocks"}]}`,
				`{"id":"d","status":"closed"}`),
			open: []string{"a", "b", "c"}, waiting: map[string][]string{"a": {"b"}}},
		{name: "a blocker beads deleted (tombstone) is done, as closed is; bd ready does not wait on it",
			data: lines(`{"id":"a","status":"open","dependencies":[{"depends_on_id":"t","type":"blocks"}]}`,
				`{"id":"t","status":"tombstone","deleted_at":"2026-01-02T00:00:00Z"}`,
				`{"id":"c","status":"open","dependencies":[{"depends_on_id":"u","type":"blocks"}]}`,
				`{"id":"u","status":"open"}`, `{"id":"u","status":"tombstone"}`),
			open: []string{"a", "c"}},
		{name: "a dependency without a type blocks; other types never do",
			data: lines(`{"id":"a","status":"open","dependencies":[{"depends_on_id":"b"},{"depends_on_id":"c","type":"related"},{"depends_on_id":"c","type":"parent-child"}]}`,
				`{"id":"b","status":"in_progress"}`, `{"id":"c","status":"open"}`),
			open: []string{"a", "c"}, waiting: map[string][]string{"a": {"b"}}},
		{name: "a blocker no line holds blocks, naming it",
			data: lines(`{"id":"a","status":"open","dependencies":[{"depends_on_id":"gone","type":"blocks"}]}`),
			open: []string{"a"}, waiting: map[string][]string{"a": {"gone"}}},
		{name: "a dependency on itself blocks, as a cycle of two does: each waits on an open issue",
			data: lines(`{"id":"a","status":"open","dependencies":[{"depends_on_id":"a","type":"blocks"}]}`,
				`{"id":"b","status":"open","dependencies":[{"depends_on_id":"c"}]}`,
				`{"id":"c","status":"open","dependencies":[{"depends_on_id":"b"}]}`),
			open: []string{"a", "b", "c"}, waiting: map[string][]string{"a": {"a"}, "b": {"c"}, "c": {"b"}}},
		{name: "the last line of an id holds (the blocker was closed later)",
			data: lines(`{"id":"b","status":"open"}`, `{"id":"a","status":"open","dependencies":[{"depends_on_id":"b","type":"blocks"}]}`,
				`{"id":"b","status":"closed"}`),
			open: []string{"a"}},
		{name: "unreadable dependencies block and are reported",
			data: lines(`{"id":"a","status":"open","dependencies":"b"}`),
			open: []string{"a"}, waiting: map[string][]string{"a": {"(unreadable dependency)"}}, problems: 1, problemText: "dependencies"},
		{name: "lines that are not issues are reported and skipped",
			data: lines(`{"id":"a","status":"open"}`, `<<<<<<< HEAD`, `{"title":"no id"}`, `[1,2]`, ``, `{"id":"b","status":"open"}`),
			open: []string{"a", "b"}, problems: 3, problemText: "issue"},
		{name: "a priority out of range is reported and ranked as P2",
			data: lines(`{"id":"a","status":"open","priority":9}`, `{"id":"b","status":"open","priority":"high"}`),
			open: []string{"a", "b"}, problems: 2, problemText: "priority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open, problems := ReadBeads(".beads/issues.jsonl", tt.data)
			if got := ids(open); !slices.Equal(got, tt.open) {
				t.Errorf("open work %v, want %v", got, tt.open)
			}
			for _, it := range open {
				if want := tt.waiting[it.ID]; !slices.Equal(it.WaitingOn, want) {
					t.Errorf("%s waits on %v, want %v", it.ID, it.WaitingOn, want)
				}
				if it.Source != SourceBeads || it.File != ".beads/issues.jsonl" {
					t.Errorf("%s: source %q file %q", it.ID, it.Source, it.File)
				}
			}
			if len(problems) != tt.problems {
				t.Errorf("%d problems %v, want %d", len(problems), problems, tt.problems)
			}
			for _, p := range problems {
				if !strings.Contains(p.Error(), tt.problemText) || p.Line == 0 {
					t.Errorf("problem %q: want a line number and %q", p.Error(), tt.problemText)
				}
			}
		})
	}
}

func TestReadBeadsKeepsWhatTheListShows(t *testing.T) {
	open, _ := ReadBeads("f", lines(`{"id":"a","title":"Fix \"it\"\n","status":"open","priority":1,"issue_type":"bug","created_at":"2026-01-02T00:00:00Z","assignee":"bob","extra":{"x":[1]}}`))
	want := Item{ID: "a", Title: "Fix \"it\"\n", Source: SourceBeads, File: "f", Priority: 1, Status: "open", IssueType: "bug",
		CreatedAt: "2026-01-02T00:00:00Z", Assignee: "bob", Line: 1}
	if len(open) != 1 || !equalItem(open[0], want) {
		t.Fatalf("got %+v, want %+v", open, want)
	}
}

func equalItem(a, b Item) bool {
	return a.ID == b.ID && a.Title == b.Title && a.Source == b.Source && a.File == b.File && a.Priority == b.Priority &&
		a.Status == b.Status && a.IssueType == b.IssueType && a.CreatedAt == b.CreatedAt && a.Assignee == b.Assignee &&
		a.Line == b.Line && slices.Equal(a.WaitingOn, b.WaitingOn)
}

func TestStreamItemsFollowsTheReadView(t *testing.T) {
	stream := lines(
		`{"v":3,"ts":"2026-02-09T20:00:00Z","seq":1,"lane":"event","op":"replace","items":[`+
			`{"id":"st-1","step":"one","status":"completed","deps":[]},`+
			`{"id":"st-2","step":"two","status":"pending","deps":[{"id":"st-1","type":"blocks"}]},`+
			`{"id":"st-3","step":"three","status":"pending","deps":[{"id":"st-2"}]},`+
			`{"id":"st-4","step":"four","status":"in_progress","deps":[]},`+
			`{"id":"st-5","step":"five","status":"blocked","deps":[]},`+
			`{"id":"st-6","step":"six","status":"pending","deps":[{"id":"st-2","type":"relates-to"}]}]}`,
		`{"v":3,"ts":"2026-02-09T20:01:00Z","seq":2,"lane":"event","op":"set_status","id":"st-9","status":"completed"}`,
		`not json`)
	open, problems := StreamItems("plans/a.jsonl", stream)
	if got, want := ids(open), []string{"st-2", "st-3", "st-5", "st-6"}; !slices.Equal(got, want) {
		t.Fatalf("open work %v, want %v", got, want)
	}
	if !slices.Equal(open[1].WaitingOn, []string{"st-2"}) || len(open[0].WaitingOn) != 0 || len(open[3].WaitingOn) != 0 {
		t.Errorf("waiting: %+v", open)
	}
	if open[0].Line != 2 || open[0].Title != "two" || open[0].Priority != DefaultPriority || open[0].Source != SourceST {
		t.Errorf("st-2 is %+v", open[0])
	}
	if len(problems) != 2 {
		t.Errorf("problems %v, want the unknown item and the line that is not a record", problems)
	}
}

func TestReadyOrderAndCounts(t *testing.T) {
	open := []Item{
		{ID: "st-b", Source: SourceST, File: "plans/b.jsonl", Priority: 2, Line: 1, Status: "pending"},
		{ID: "st-a2", Source: SourceST, File: "plans/a.jsonl", Priority: 2, Line: 2, Status: "pending"},
		{ID: "st-a1", Source: SourceST, File: "plans/a.jsonl", Priority: 2, Line: 1, Status: "pending"},
		{ID: "p2-new", Source: SourceBeads, Priority: 2, CreatedAt: "2026-03-01T00:00:00Z", Status: "open"},
		{ID: "p2-undated", Source: SourceBeads, Priority: 2, Status: "open"},
		{ID: "p2-old", Source: SourceBeads, Priority: 2, CreatedAt: "2026-01-01T00:00:00Z", Status: "open"},
		{ID: "p0", Source: SourceBeads, Priority: 0, CreatedAt: "2026-06-01T00:00:00Z", Status: "open"},
		{ID: "p4", Source: SourceBeads, Priority: 4, CreatedAt: "2025-01-01T00:00:00Z", Status: "open"},
		{ID: "b-tie", Source: SourceBeads, Priority: 1, CreatedAt: "2026-01-01T00:00:00Z", Status: "open"},
		{ID: "a-tie", Source: SourceBeads, Priority: 1, CreatedAt: "2026-01-01T00:00:00Z", Status: "open"},
		{ID: "waits", Source: SourceBeads, Priority: 0, Status: "open", WaitingOn: []string{"x"}},
		{ID: "marked", Source: SourceST, Priority: 0, Status: "blocked"},
		{ID: "mine-blocked", Source: SourceBeads, Priority: 0, Status: "open", WaitingOn: []string{"x"}},
		{ID: "assigned", Source: SourceBeads, Priority: 0, Status: "open"},
		{ID: "beads-assignee", Source: SourceBeads, Priority: 0, Status: "open", Assignee: "carl"},
		{ID: "reserved", Source: SourceBeads, Priority: 0, Status: "open"},
		{ID: "both", Source: SourceBeads, Priority: 0, Status: "open"},
	}
	taken := Taken{
		Assigned: map[string]string{"assigned": "bob", "mine-blocked": "me", "both": "bob"},
		Reserved: map[string]string{"reserved": "bob", "both": "carl"},
	}
	var pool Pool
	pool.AddItems(open)
	ready, more, counts := pool.Ready(taken, 0)
	if more != 0 {
		t.Errorf("more %d without a limit", more)
	}
	want := []string{"p0", "a-tie", "b-tie", "p2-old", "p2-new", "p2-undated", "st-a1", "st-a2", "st-b", "p4"}
	if got := ids(ready); !slices.Equal(got, want) {
		t.Errorf("order %v\nwant  %v", got, want)
	}
	wantCounts := Counts{Open: len(open), Blocked: 3, Assigned: 3, Reserved: 1, Ready: len(want)}
	if counts != wantCounts {
		t.Errorf("counts %+v, want %+v", counts, wantCounts)
	}
	if s := counts.Summary(); !strings.Contains(s, "17 open: 3 blocked, 3 assigned, 1 reserved by others, 10 ready") {
		t.Errorf("summary %q", s)
	}
}

func TestReadyLimitMakesWholeOnlyWhatItShows(t *testing.T) {
	var pool Pool
	pool.AddBeads("f", lines(
		`{"id":"c","title":"third","status":"open","priority":2,"issue_type":"task"}`,
		`{"id":"a","title":"first \u00e9","status":"open","priority":0,"issue_type":"bug","created_at":"2026-01-01T00:00:00Z"}`,
		`{"id":"b","title":"second","status":"open","priority":1,"assignee":""}`))
	ready, more, counts := pool.Ready(Taken{}, 2)
	if got := ids(ready); !slices.Equal(got, []string{"a", "b"}) || more != 1 || counts.Ready != 3 {
		t.Fatalf("ready %v more %d counts %+v", got, more, counts)
	}
	if ready[0].Title != "first é" || ready[0].IssueType != "bug" || ready[0].CreatedAt != "2026-01-01T00:00:00Z" || ready[0].Line != 2 {
		t.Errorf("first item %+v", ready[0])
	}
}

// A beads issue without a priority is beads' P0: bd merge wrote priority 0
// with omitempty (beads issue #671), so real files have such lines, and bd
// itself reads the missing field as 0. It comes first, before a P1.
func TestReadyRanksBeadsIssueWithoutPriorityAsP0(t *testing.T) {
	var pool Pool
	pool.AddBeads("f", lines(
		`{"id":"high","title":"P1","status":"open","priority":1,"issue_type":"task","created_at":"2025-10-01T00:00:00Z"}`,
		`{"id":"crit","title":"P0, written without the field","status":"open","issue_type":"bug","created_at":"2025-11-01T00:00:00Z"}`,
		`{"id":"null","title":"P0 as null","status":"open","priority":null,"issue_type":"bug","created_at":"2025-11-02T00:00:00Z"}`))
	ready, _, _ := pool.Ready(Taken{}, 0)
	if got := ids(ready); !slices.Equal(got, []string{"crit", "null", "high"}) || ready[0].Priority != 0 {
		t.Fatalf("ready %v (first %+v), want crit and null (P0) before high (P1)", got, ready[0])
	}
}

// pickFields reads what a strict decoder reads of well-formed lines, and
// refuses lines whose structure does not hold.
func TestPickFields(t *testing.T) {
	keys := []string{"id", "status"}
	tests := []struct {
		line       string
		id, status string
		bad        bool
	}{
		{line: `{"id":"a","status":"open"}`, id: `"a"`, status: `"open"`},
		{line: ` { "title" : "x \" , \"status\":\"closed\\" , "id" : "a" , "status":"open" } `, id: `"a"`, status: `"open"`},
		{line: `{"\u0073tatus":"closed","id":"a","deps":[{"status":"x"},"]"],"n":-1.5e3,"t":true}`, id: `"a"`, status: `"closed"`},
		{line: `{"id":"a","status":"open","status":"closed"}`, id: `"a"`, status: `"closed"`},
		{line: `{}`},
		{line: `{"id":"a"`, bad: true},
		{line: `{"id":"a} `, bad: true},
		{line: `{"id":"a","deps":[1,2}`, bad: true},
		{line: `{"id":"a"} x`, bad: true},
		{line: `["id","a"]`, bad: true},
		{line: `{"id" "a"}`, bad: true},
		{line: `{"id":}`, bad: true},
		{line: ``, bad: true},
	}
	for _, tt := range tests {
		out := make([][]byte, len(keys))
		err := pickFields([]byte(tt.line), keys, out)
		if (err != nil) != tt.bad {
			t.Errorf("%s: error %v, want bad=%v", tt.line, err, tt.bad)
			continue
		}
		if !tt.bad && (string(out[0]) != tt.id || string(out[1]) != tt.status) {
			t.Errorf("%s: id %s status %s, want %s %s", tt.line, out[0], out[1], tt.id, tt.status)
		}
	}
}

// Oldest first means the oldest instant, whatever offset each contributor's
// beads wrote: real trackers mix -08:00, -05:00, +11:00 and Z (the
// steveyegge/beads history holds all of them). The pair below is from it:
// bd-4aao (18:53:28-05:00, 23:53:28Z) is two minutes older than bd-g9eu
// (15:55:19-08:00, 23:55:19Z), though its text sorts after. A time that
// does not read as RFC 3339 ranks as one without a time (last).
func TestReadyOrdersCreatedAtByInstantNotText(t *testing.T) {
	var pool Pool
	pool.AddBeads("f", lines(
		`{"id":"bd-g9eu","status":"open","priority":2,"created_at":"2025-11-20T15:55:19.337094-08:00"}`,
		`{"id":"bd-4aao","status":"open","priority":2,"created_at":"2025-11-20T18:53:28.4803-05:00"}`,
		`{"id":"bd-utc","status":"open","priority":2,"created_at":"2025-11-20T23:54:00Z"}`,
		`{"id":"bd-east","status":"open","priority":2,"created_at":"2025-11-21T10:00:00+11:00"}`,
		`{"id":"bd-junk","status":"open","priority":2,"created_at":"yesterday"}`,
		`{"id":"bd-none","status":"open","priority":2}`))
	ready, _, _ := pool.Ready(Taken{}, 0)
	want := []string{"bd-east", "bd-4aao", "bd-utc", "bd-g9eu", "bd-junk", "bd-none"}
	if got := ids(ready); !slices.Equal(got, want) {
		t.Errorf("order %v\nwant  %v", got, want)
	}
	if ready[1].CreatedAt != "2025-11-20T18:53:28.4803-05:00" {
		t.Errorf("created_at is shown as %q, not as the file has it", ready[1].CreatedAt)
	}
}

// A file with no st record at all (the beads tracker named by mistake as
// --stream, a config file, a log) is one problem saying it is not a
// stream, not a problem for each of its lines: a careless --stream
// .beads/issues.jsonl printed one warning per issue, and the message of
// each quoted the line's first character, which --stream (and the MCP
// tool's streams) could read out of any file one line at a time.
func TestStreamItemsOfAFileThatIsNoStream(t *testing.T) {
	for name, data := range map[string][]byte{
		"beads":  lines(`{"id":"bd-1","status":"open"}`, `{"id":"bd-2","status":"open"}`, `{"id":"bd-3","status":"closed"}`),
		"config": lines(`[core]`, `	bare = false`, `[remote "origin"]`, `	url = secret`),
	} {
		t.Run(name, func(t *testing.T) {
			open, problems := StreamItems("x.jsonl", data)
			if len(open) != 0 || len(problems) != 1 {
				t.Fatalf("%d items, problems %v; want none and one problem", len(open), problems)
			}
			if msg := problems[0].Error(); !strings.Contains(msg, "not an st stream") || strings.Contains(msg, "invalid character") {
				t.Errorf("problem %q", msg)
			}
		})
	}
	// A stream with one bad line still reports that line.
	_, problems := StreamItems("p.jsonl", lines(`{"v":3,"ts":"2026-02-09T20:00:00Z","seq":0,"lane":"event","op":"init"}`, `oops`))
	if len(problems) != 1 || problems[0].Line != 2 {
		t.Errorf("problems %v, want line 2", problems)
	}
}
