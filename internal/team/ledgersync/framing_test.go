package ledgersync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A version that obeys every rule but for bytes around or between its
// JSON tokens that a log line may not hold (a carriage return, as a CRLF
// editor leaves; a space before the object) is set aside under the json
// rule, as any line that is not one object from { to }: the logs refuse
// such a line, and a join or sync that took it failed whole, every time,
// for as long as the ledger held it. So is one that holds a byte that is
// not UTF-8: it was taken, and export wrote it where validate and the
// pre-commit hook refuse it, so the clone could no longer commit its export.
func TestVersionsFramedOtherwiseAreSetAsideNotFatal(t *testing.T) {
	for _, c := range []struct {
		name  string
		frame func(line string) string
		// unioned: a sync whose clone holds the chunk unites the two
		// versions of it (merge.UnionStore), which reads a CRLF line
		// ending as a line ending: the version comes out whole, and is
		// taken.
		unioned bool
	}{
		{"a carriage return after", func(l string) string { return l + "\r" }, true},
		{"a space before", func(l string) string { return " " + l }, false},
		{"a tab after", func(l string) string { return l + "\t" }, false},
		{"a carriage return between members", func(l string) string { return strings.Replace(l, `,"`, ",\r\"", 1) }, false},
		{"a byte that is not UTF-8", func(l string) string { return strings.Replace(l, `"body":"`, "\"body\":\"\xff", 1) }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRemote(t)
			clk := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
			a := newClone(t, r, clk)
			a.send(t, "ann", "bob", "x")
			a.sync(t)
			clk.tick(time.Minute)
			y := a.send(t, "ann", "bob", "y") // never synced: mallory pushes it framed otherwise
			sel, err := a.s.Select(records.MessagesFile, store.Query{})
			if err != nil {
				t.Fatal(err)
			}
			var line string
			for _, e := range sel.Entries {
				if strings.Contains(string(e.Raw), y.ID) {
					line = string(e.Raw)
				}
			}
			if line == "" {
				t.Fatal("y is not in ann's store")
			}
			tmp := testgit.Clone(t, r)
			testgit.Run(t, tmp, "fetch", "-q", "origin", ledger.Ref+":refs/l")
			testgit.Run(t, tmp, "checkout", "-q", "refs/l")
			chunks, _ := filepath.Glob(filepath.Join(tmp, "messages", "*", "*", "*.jsonl"))
			if len(chunks) != 1 {
				t.Fatalf("the ledger's message chunks: %v", chunks)
			}
			data, err := os.ReadFile(chunks[0])
			if err != nil {
				t.Fatal(err)
			}
			testgit.Write(t, tmp, strings.TrimPrefix(chunks[0], tmp+"/"), string(data)+c.frame(line)+"\n")
			testgit.Run(t, tmp, "commit", "-qam", "framed")
			testgit.Run(t, tmp, "push", "-q", "origin", "HEAD:"+ledger.Ref)

			for _, join := range []bool{true, false} {
				b := newClone(t, r, clk)
				if !join {
					// b synced before the push: fetch x alone first.
					testgit.Run(t, tmp, "push", "-q", "-f", "origin", "HEAD~1:"+ledger.Ref)
					b.sync(t)
					testgit.Run(t, tmp, "push", "-q", "-f", "origin", "HEAD:"+ledger.Ref)
				}
				res := b.sync(t)
				var json int
				for _, s := range res.SetAside {
					if s.Rule == records.RuleJSON {
						json += s.Records
					}
				}
				taken := c.unioned && !join
				if got := b.inbox(t, "bob"); len(got) != 1+btoi(taken) || !strings.Contains(got[0], " x ") {
					t.Errorf("join %v: bob's inbox %v, want x (and y: %v)", join, got, taken)
				}
				if json != 1-btoi(taken) {
					t.Errorf("join %v: set aside %+v, want the framed version under the json rule", join, res.SetAside)
				}
				received, err := os.ReadFile(store.ReceivedPath(b.s.WS, records.MessagesFile))
				if err != nil || strings.Contains(string(received), "\r") {
					t.Errorf("join %v: received %q (%v)", join, received, err)
				}
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
