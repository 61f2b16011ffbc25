package ledgersync

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// Seed 002 writes every time in UTC ("...Z"), and the stores check of
// doctor and validate hold each log to it. A version pushed to the ledger
// with a time at an offset (+02:00, even +00:00) was applied by every clone that
// synced, whose stores then failed those checks with nothing anyone there
// could do (one without a zone was set aside already); such versions are now set aside by the time rule, named in
// the note, and every clone's store stays valid.
func TestVersionsWithTimesOutOfUTCAreSetAside(t *testing.T) {
	_, b, _, push := twoSyncedClones(t)
	push(ledger.Lines{
		records.MessagesFile: {[]byte(`{"id":"qm-01KB0000000000000000000001","created_at":"2026-11-23T13:00:00+02:00","updated_at":"2026-11-23T13:00:00+02:00",` +
			`"from":"ann","to":"bob","subject":"s","body":"b","importance":"normal","read":false,"updated_by":"ann"}`),
			[]byte(`{"id":"qm-01KB0000000000000000000004","created_at":"2026-11-23T11:00:00","updated_at":"2026-11-23T11:00:00",` +
				`"from":"ann","to":"bob","subject":"s","body":"b","importance":"normal","read":false,"updated_by":"ann"}`)},
		records.AssignmentsFile: {[]byte(`{"id":"qa-01KB0000000000000000000002","created_at":"2026-11-23T11:00:00Z","updated_at":"2026-11-23T11:00:00+00:00",` +
			`"issue_id":"bd-1","droid":"ann","assigned_by":"ann","status":"active","updated_by":"ann"}`)},
		records.ReservationsFile: {[]byte(`{"id":"qr-01KB0000000000000000000003","created_at":"2026-11-23T11:00:00Z","updated_at":"2026-11-23T11:00:00Z",` +
			`"expires_at":"2026-11-23T14:00:00+01:00","pattern":"z/**","droid":"ann","status":"active","exclusive":true,"updated_by":"ann"}`)},
	})

	res := b.sync(t)
	if len(res.SetAside) != 1 || res.SetAside[0].Rule != records.RuleTime || res.SetAside[0].Records != 4 {
		t.Errorf("set aside %+v, want the four versions out of UTC, under the %s rule", res.SetAside, records.RuleTime)
	}
	logs, _ := filepath.Glob(filepath.Join(b.s.WS.Dir, "*.jsonl"))
	received, _ := filepath.Glob(filepath.Join(b.s.WS.Dir, "received", "*.jsonl"))
	if len(received) == 0 {
		t.Fatal("bob's clone received nothing")
	}
	for _, f := range append(logs, received...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if res := schema.ValidateFile(".beads/"+filepath.Base(f), data, schema.Options{}); !res.Valid() {
			t.Errorf("%s is no longer valid after the sync: %+v", f, res.Problems)
		}
	}
}
