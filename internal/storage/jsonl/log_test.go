package jsonl

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newTestLog(t *testing.T) *Log {
	t.Helper()
	dir := t.TempDir()
	return &Log{Path: filepath.Join(dir, "queen_messages.jsonl"), Lock: &Lock{Path: filepath.Join(dir, "queen.lock")}}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendWritesOneLinePerRecord(t *testing.T) {
	l := newTestLog(t)
	type msg struct {
		ID   string `json:"id"`
		Body string `json:"body"`
	}
	if err := l.Append(msg{"qm-1", "a <b> & c"}, msg{"qm-2", "line\nbreak"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Append([]byte(`{"id":"qm-1","body":"raw","extra":true}`)); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"qm-1","body":"a <b> & c"}` + "\n" + `{"id":"qm-2","body":"line\nbreak"}` + "\n" +
		`{"id":"qm-1","body":"raw","extra":true}` + "\n"
	if got := readFile(t, l.Path); got != want {
		t.Fatalf("file:\n%s\nwant:\n%s", got, want)
	}
}

func TestAppendRejectsWhatIsNotOneRecord(t *testing.T) {
	l := newTestLog(t)
	for _, bad := range []any{[]byte("{\"id\":1}\n{\"id\":2}"), []byte(`not json`), []byte(`[1]`), make(chan int)} {
		if err := l.Append(bad); err == nil {
			t.Errorf("Append(%v) succeeded", bad)
		}
	}
	if _, err := os.Stat(l.Path); !os.IsNotExist(err) {
		t.Fatalf("a rejected append created the file")
	}
}

func TestTxIsInvalidAfterDo(t *testing.T) {
	l := newTestLog(t)
	var leaked *Tx
	if err := l.Lock.Do(func(tx *Tx) error { leaked = tx; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := leaked.Append(l, map[string]string{"id": "x"}); err == nil {
		t.Fatal("a Tx used after its lock was released still appended")
	}
}

func TestTornTailRepair(t *testing.T) {
	bigTorn := `{"id":"qm-3","body":"` + strings.Repeat("y", 200<<10)
	tests := []struct {
		name           string
		before         string
		wantLog        string // before the appended record
		wantQuarantine string // the torn bytes, "" for none
	}{
		{"complete record without newline", `{"id":"qm-1"}` + "\n" + `{"id":"qm-2"}`,
			`{"id":"qm-1"}` + "\n" + `{"id":"qm-2"}` + "\n", ""},
		{"crlf record without newline", "{\"id\":\"qm-1\"}\r\n{\"id\":\"qm-2\"}\r",
			"{\"id\":\"qm-1\"}\r\n{\"id\":\"qm-2\"}\r\n", ""},
		{"torn record", `{"id":"qm-1"}` + "\n" + `{"id":"qm-2","bo`,
			`{"id":"qm-1"}` + "\n", `{"id":"qm-2","bo`},
		{"torn first and only line", `{"id":"qm-2","bo`, ``, `{"id":"qm-2","bo`},
		{"torn line longer than a read block", `{"id":"qm-1"}` + "\n" + bigTorn,
			`{"id":"qm-1"}` + "\n", bigTorn},
		{"torn line that parses as a non-object", `{"id":"qm-1"}` + "\n" + `12`,
			`{"id":"qm-1"}` + "\n", `12`},
		{"trailing spaces", `{"id":"qm-1"}` + "\n" + `   `, `{"id":"qm-1"}` + "\n" + "   \n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newTestLog(t)
			var repairs []Repair
			l.OnRepair = func(r Repair) { repairs = append(repairs, r) }
			if err := os.WriteFile(l.Path, []byte(tt.before), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := l.Append(map[string]string{"id": "qm-new"}); err != nil {
				t.Fatal(err)
			}
			if got, want := readFile(t, l.Path), tt.wantLog+`{"id":"qm-new"}`+"\n"; got != want {
				t.Fatalf("log = %.200q, want %.200q", got, want)
			}
			if len(repairs) != 1 {
				t.Fatalf("repairs reported: %d, want 1", len(repairs))
			}
			q, err := os.ReadFile(QuarantinePath(l.Path))
			if tt.wantQuarantine == "" {
				if err == nil || repairs[0].Quarantine != "" {
					t.Fatalf("a complete record was quarantined: %q", q)
				}
				return
			}
			if err != nil || repairs[0].Quarantine != QuarantinePath(l.Path) {
				t.Fatalf("no quarantine: %v, %+v", err, repairs[0])
			}
			header, torn, _ := bytes.Cut(q, []byte("\n"))
			var h map[string]any
			if err := json.Unmarshal(header, &h); err != nil || h["file"] != "queen_messages.jsonl" {
				t.Fatalf("quarantine header %q: %v", header, err)
			}
			if string(torn) != tt.wantQuarantine+"\n" {
				t.Fatalf("quarantined %.100q, want %.100q", torn, tt.wantQuarantine)
			}
			if s, _ := l.Load(); len(s.Problems) != 0 {
				t.Fatalf("problems after repair: %v", s.Problems)
			}
		})
	}
}

func TestNoSyncAppendsToo(t *testing.T) {
	l := newTestLog(t)
	l.NoSync = true
	for i := range 3 {
		if err := l.Append(map[string]int{"n": i, "id": i}); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Count(readFile(t, l.Path), "\n"); got != 3 {
		t.Fatalf("%d lines, want 3", got)
	}
}

// Append writes records under the log's lock. See Tx.Append.
func (l *Log) Append(records ...any) error {
	return l.Lock.Do(func(tx *Tx) error { return tx.Append(l, records...) })
}
