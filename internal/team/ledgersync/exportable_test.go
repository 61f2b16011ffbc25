package ledgersync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestWhatASyncTakesExportsValid: a version a sync takes from the remote
// is one that export can write where validate and the pre-commit hook
// read it. A pushed message holding a byte that is not UTF-8, or addressed
// to @all (a group address: seed 002's to is one droid), or with a null
// where the seed has none or an empty reply_to, was taken, and
// every clone that synced then wrote it into .beads/ with export, whose
// commit the hook refused for as long as the store held it.
func TestWhatASyncTakesExportsValid(t *testing.T) {
	for _, tt := range []struct{ name, old, new string }{
		{"a byte that is not UTF-8", `"body":"`, "\"body\":\"\xff"},
		{"a message to @all", `"to":"bob"`, `"to":"@all"`},
		{"an updated_at of null", `"updated_at":"`, `"updated_at":null,"at":"`},
		{"a deleted of null", `"read":false`, `"read":false,"deleted":null`},
		{"an empty reply_to", `"read":false`, `"read":false,"reply_to":""`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRemote(t)
			clk := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
			a, b := newClone(t, r, clk), newClone(t, r, clk)
			x := a.send(t, "ann", "bob", "x")
			a.sync(t)

			mal, chunk := ledgerCheckout(t, r)
			data, err := os.ReadFile(filepath.Join(mal, chunk))
			if err != nil {
				t.Fatal(err)
			}
			line := strings.Replace(strings.Replace(strings.TrimSpace(string(data)), x.ID, ids.NewMessage(), 1), tt.old, tt.new, 1)
			testgit.Write(t, mal, chunk, string(data)+line+"\n")
			testgit.Run(t, mal, "commit", "-qam", "hostile")
			testgit.Run(t, mal, "push", "-q", "origin", "HEAD:"+ledger.Ref)

			b.sync(t)
			dir := filepath.Join(t.TempDir(), ".beads")
			if _, err := b.s.Export(dir, []string{records.MessagesFile}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, records.MessagesFile)
			data, err = os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if res := schema.ValidateFile(path, data, schema.Options{}); res.Format == "" || res.Records != 1 || len(res.Problems) > 0 {
				t.Errorf("the export of what the sync took (%d messages, as %q): %+v", res.Records, res.Format, res.Problems)
			}
		})
	}
}
