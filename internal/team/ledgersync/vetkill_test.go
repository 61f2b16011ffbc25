package ledgersync

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A sync of a ledger whose chunks mix valid versions and tiny invalid
// lines in every proportion (the vetting copies the valid ones out of a
// chunk that is mostly invalid), whose chunks were rewritten rather than
// appended to, and which carries a version twice in two chunks, killed at
// each point of its round and run again, applies what an uninterrupted
// sync applies: every valid version once, the newest of each record, and
// says the same of what it set aside.
func TestAKilledSyncOfAMixedLedgerAppliesWhatAWholeOneDoes(t *testing.T) {
	mixed := func(t *testing.T, r testgit.Remote, before ...*clone) {
		ac := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
		a := newClone(t, r, ac)
		for i := range 12 {
			a.send(t, "ann", "bob", fmt.Sprint("m", i))
			ac.tick(time.Second)
		}
		a.sync(t)
		for _, cl := range before {
			cl.sync(t) // holds the chunks the push then rewrites
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
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		// Rewritten: reversed, one line cut, an invalid line among them.
		rewritten := slices.Clone(lines[1:])
		slices.Reverse(rewritten)
		rewritten = append(rewritten, `{"id":"qm-bad"}`)
		testgit.Write(t, tmp, strings.TrimPrefix(chunks[0], tmp+"/"), strings.Join(rewritten, "\n"))
		// New chunks, each with one valid line in n, the rest "{}"; one
		// carries lines[0] again, which another chunk carries too.
		dir := filepath.Dir(filepath.Dir(chunks[0]))
		for n, valid := range []int{1, 2, 3, 5, 10} {
			var b strings.Builder
			for j := range 20 {
				if j%valid == 0 {
					b.WriteString(lines[(n+j)%len(lines)] + "\n")
				} else {
					b.WriteString("{}\n")
				}
			}
			b.WriteString(lines[0])
			testgit.Write(t, tmp, filepath.Join(strings.TrimPrefix(dir, tmp+"/"), "001", fmt.Sprintf("%02d.jsonl", n)), b.String())
		}
		testgit.Run(t, tmp, "add", "-A")
		testgit.Run(t, tmp, "commit", "-qm", "mixed")
		testgit.Run(t, tmp, "push", "-q", "-f", "origin", "HEAD:"+ledger.Ref)
	}
	outcome := func(t *testing.T, cl *clone, res *Result) string {
		data, _ := os.ReadFile(store.ReceivedPath(cl.s.WS, records.MessagesFile))
		got := strings.Split(strings.TrimSpace(string(data)), "\n")
		noRepeats(t, "received/ of "+cl.dir, got)
		slices.Sort(got)
		var aside []string
		for _, s := range res.SetAside {
			aside = append(aside, fmt.Sprintf("%s %d %s %s", s.Rule, s.Records, s.Reason, s.Example))
		}
		return strings.Join(got, "\n") + "\n--\n" + strings.Join(aside, "\n") + "\n--\n" + strings.Join(cl.inbox(t, "bob"), "\n")
	}
	c := &clock{time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)}
	for _, point := range []string{"fetched", "applied", "recorded", "intent-saved", "ref-moved"} {
		t.Run(point, func(t *testing.T) {
			r := newRemote(t)
			whole, cl := newClone(t, r, c), newClone(t, r, c)
			mixed(t, r, whole, cl)
			want := outcome(t, whole, whole.sync(t))
			if !strings.Contains(want, "\nrequired 58 ") || len(whole.inbox(t, "bob")) != 12 {
				t.Fatalf("the whole sync:\n%s", want)
			}
			cl.syncKilledAt(t, point)
			got := outcome(t, cl, cl.sync(t))
			// The inbox and received/ must match; what the second sync
			// says it set aside may be nothing when the first noted it.
			gotParts, wantParts := strings.Split(got, "\n--\n"), strings.Split(want, "\n--\n")
			if gotParts[0] != wantParts[0] || gotParts[2] != wantParts[2] {
				t.Errorf("killed at %s, then synced:\n%s\nwant\n%s", point, got, want)
			}
		})
	}
}
