package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// A received log that holds a version twice, byte for byte (what an
// earlier sync left when the ledger carried a version twice), is readable
// and means what it says: the stores check warns and names compact, where
// it failed with advice for a tracked file. The same copy in this clone's
// own log still fails (no sync writes there), and so does a received log
// with another problem besides the copies, at that problem's own line.
func TestDoctorWarnsOfVersionsAReceivedLogRepeats(t *testing.T) {
	msg := func(id, subject string) string {
		return `{"id":"qm-01KB` + id + `","created_at":"2026-11-23T11:00:00Z","updated_at":"2026-11-23T12:00:01Z","from":"ann","to":"bob","subject":"` + subject + `","body":"","importance":"normal","read":false}` + "\n"
	}
	a, b := msg("0000000000000000000001", "a"), msg("0000000000000000000002", "b")
	cases := []struct {
		name, own, received string
		want                Status
		says                string
	}{
		{"sound", a, b, OK, "2 logs readable and valid"},
		{"a received version twice", a, b + a + b + a, Warn, "queen_messages.jsonl (2 repeated lines)"},
		{"an own version twice", a + b + a, b, Fail, "queen_messages.jsonl:3: repeats line 1"},
		{"a received version twice and a broken line", a, b + b + "{\"id\":\n", Fail, "queen_messages.jsonl:3:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t)
			dir := filepath.Join(r.StoreDir, store.ReceivedDir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(r.StoreDir, records.MessagesFile), []byte(tc.own), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, records.MessagesFile), []byte(tc.received), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range r.Checks(Options{}) {
				if c.Name != "stores" {
					continue
				}
				if c.Status != tc.want || !strings.Contains(c.Message, tc.says) {
					t.Fatalf("stores: %s %q, want %s saying %q", c.Status, c.Message, tc.want, tc.says)
				}
				if tc.want == Warn && !strings.Contains(c.Message, "git queen compact") {
					t.Fatalf("stores: %q names no way out", c.Message)
				}
				return
			}
			t.Fatal("no stores check")
		})
	}
}
