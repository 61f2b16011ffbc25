package app

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestVersionsAcrossLogsReadsOnlyTheLogsRecords: archive judges a record
// by its newest version in the logs and their archives, but an archive
// only grows, and reading it whole kept every record ever archived in
// memory at each archive (480 MB for a 118 MB archive). Only the records
// the logs still hold are read: their versions in the archive count, the
// rest of the archive does not.
func TestVersionsAcrossLogsReadsOnlyTheLogsRecords(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	if _, err := Reserve.Run(e, ReserveRequest{Patterns: []string{"src/a"}}); err != nil {
		t.Fatal(err)
	}
	s, err := e.OpenStore()
	if err != nil {
		t.Fatal(err)
	}
	log := s.WS.Path(records.ReservationsFile)
	line := func(id, status, at string) string {
		return fmt.Sprintf(`{"id":%q,"created_at":"2025-01-01T00:00:00Z","updated_at":%q,"updated_by":"bob","expires_at":"2025-01-01T02:00:00Z",`+
			`"pattern":"src/%s","droid":"bob","status":%q,"exclusive":true}`+"\n", id, at, id, status)
	}
	appendTo := func(path, text string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	// qr-shared: active in the log, released in the archive (an archive
	// cut off between two logs); qr-gone-N: only in the archive.
	appendTo(log, line("qr-shared", "active", "2025-01-01T00:00:00Z"))
	archive := line("qr-shared", "released", "2025-01-01T01:00:00Z")
	for i := range 100 {
		archive += line(fmt.Sprintf("qr-gone-%d", i), "released", "2025-01-01T01:00:00Z")
	}
	appendTo(jsonl.ArchivePath(log), archive)

	versions, err := versionsAcrossLogs(s, records.ReservationsFile)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range versions {
		ids = append(ids, v.ID)
		if v.ID == "qr-shared" && !strings.Contains(string(v.Raw), `"released"`) {
			t.Errorf("qr-shared's newest version is %s; want the archive's release", v.Raw)
		}
	}
	if len(ids) != 2 || !slices.Contains(ids, "qr-shared") {
		t.Fatalf("versions of %d records %q; want the log's two (ann's reservation and qr-shared), no record only the archive holds", len(ids), ids)
	}
}
