package jsonl

import (
	"encoding/json"

	"testing"
)

// GetFile answers what Select with versions answers for one id: from the
// index while it matches the log (no scan), by a scan once another program
// wrote to the log, and from the index again after the writer's next
// append rebuilds it.
func TestGetFileAnswersAsSelectByTheIndexOrAScan(t *testing.T) {
	scans := 0
	defer func(f func(string)) { scannedForGet = f }(scannedForGet)
	scannedForGet = func(string) { scans++ }

	l := indexedLog(t, testVersions)
	line := func(id string, minute int, state string) json.RawMessage {
		return json.RawMessage(versionLine(id, minute, state))
	}
	appendRecords(t, l, line("a", 10, "new"), line("b", 10, "new"), line("a", 12, "read"), line("a", 11, "stale replay"),
		line(`quo"te`, 1, "escaped id"))
	ids := []string{"a", "b", `quo"te`, "never written"}
	check := func(step string, wantScans int) {
		t.Helper()
		scans = 0
		want, _, err := SelectFile(l.Path, Query{Versions: testVersions})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]string{}
		for _, e := range want {
			byID[e.ID] = string(e.Raw)
		}
		for _, id := range ids {
			e, found, err := GetFile(l.Path, l.CacheDir, id, Query{Versions: testVersions})
			if err != nil {
				t.Fatalf("%s: GetFile(%q): %v", step, id, err)
			}
			if w, ok := byID[id]; found != ok || string(e.Raw) != w {
				t.Errorf("%s: GetFile(%q) = %q (found %v), Select has %q (%v)", step, id, e.Raw, found, w, ok)
			}
		}
		if scans != wantScans {
			t.Errorf("%s: %d scans, want %d", step, scans, wantScans)
		}
	}
	check("written by the writer", 0)
	appendForeign(t, l.Path)
	ids = append(ids, "foreign")
	check("after another program's append", len(ids))
	appendRecords(t, l, line("b", 20, "newer"))
	check("after the writer's next append", 0)
	if _, found, err := GetFile(l.Path+".missing", l.CacheDir, "a", Query{}); found || err != nil {
		t.Errorf("a missing log: found %v, %v", found, err)
	}
}
