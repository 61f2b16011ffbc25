package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// windowsLog is where the windowed tests' log would be committed.
const windowsLog = ".beads/queen_messages.jsonl"

// windowsMsg is version v of message n.
func windowsMsg(n, v int) string {
	created := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
	updated := created.Add(time.Duration(v) * time.Second)
	m := records.Message{ID: fmt.Sprintf("qm-01JD%022d", n), CreatedAt: created, UpdatedAt: &updated,
		From: "ann", To: "bob", Subject: fmt.Sprintf("message %d", n), Importance: records.ImportanceNormal, Read: v > 0}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A large log validated a window at a time reports what validating it
// whole reports, and leaves the digest a whole digest would be, wherever
// its problems lie: in one window, across two, or between the last window
// and the first.
func TestValidatingInWindowsEqualsValidatingWhole(t *testing.T) {
	defer func(size, window int) { windowedValidation, validationWindow = size, window }(windowedValidation, validationWindow)
	windowedValidation, validationWindow = 1, 2000 // windows of a few lines
	var clean []string
	for n := range 200 {
		clean = append(clean, windowsMsg(n, 0))
	}
	f, ok := DefaultRegistry().FormatFor(windowsLog, []byte(clean[0]))
	if !ok || !f.Incremental() {
		t.Fatalf("no incremental format for %s", windowsLog)
	}
	with := func(edit func([]string) []string) string {
		return strings.Join(edit(append([]string(nil), clean...)), "\n") + "\n"
	}
	for name, log := range map[string]string{
		"clean": with(func(l []string) []string { return l }),
		"a version of the first record at the end": with(func(l []string) []string { return append(l, windowsMsg(0, 1)) }),
		"the first line repeated at the end":       with(func(l []string) []string { return append(l, l[0]) }),
		"a torn line in the middle":                with(func(l []string) []string { l[100] = `{"id":"qm-`; return l }),
		"an older version after a newer one, far apart": with(func(l []string) []string {
			l[5] = windowsMsg(5, 3)
			return append(l, windowsMsg(5, 1))
		}),
		"no final newline":           strings.TrimSuffix(with(func(l []string) []string { return l }), "\n"),
		"lines longer than a window": with(func(l []string) []string { return l }),
	} {
		t.Run(name, func(t *testing.T) {
			validationWindow = 2000
			if strings.Contains(name, "longer than a window") {
				validationWindow = 100
			}
			opts := Options{Registry: DefaultRegistry()}
			forgotten := 0
			got, gotDigest := ValidateWhole(f, windowsLog, []byte(log), opts, func(w []byte) { forgotten += len(w) })
			want := Validate(f, windowsLog, []byte(log), opts)
			if cleanCase := !strings.Contains(name, "repeated") && !strings.Contains(name, "torn") && !strings.Contains(name, "older"); want.Valid() != cleanCase {
				t.Fatalf("the whole validates clean: %v, want %v (the case tests nothing)", want.Valid(), cleanCase)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("in windows:\n%+v\nwhole:\n%+v", got, want)
			}
			if !want.Valid() {
				if gotDigest != nil {
					t.Fatal("a digest of a file that is not clean")
				}
				return
			}
			if wantDigest := DigestOf(f, []byte(log)); !reflect.DeepEqual(gotDigest, wantDigest) {
				t.Fatalf("the windows' digest differs from the whole's")
			}
			if forgotten != len(log) && !strings.Contains(name, "longer than a window") {
				t.Fatalf("%d of %d bytes handed to forget", forgotten, len(log))
			}
		})
	}
}
