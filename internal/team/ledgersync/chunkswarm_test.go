package ledgersync

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A push of many empty chunks (one blob named again and again: a million
// cost 180 KB) passed every check, and every clone's sync, and every
// doctor after it, read them all (27 s for a million). Past what the
// round's bound leaves room for, they are set aside, and the honest
// parent is merged and pushed over them.
func TestASwarmOfEmptyChunksIsSetAside(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "bob", "x")
	a.sync(t)
	// 16 MiB of room leaves room for 1,024 entries of the least average,
	// and so for the 4,096 any round reads.
	testgit.Run(t, b.dir, "config", "queen.maxReceive", "16MiB")

	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	empty := gitWithStdin(t, mal, "", "hash-object", "-w", "--stdin")
	var chunks strings.Builder
	for i := range 100 {
		fmt.Fprintf(&chunks, "100644 blob %s\t%02d.jsonl\n", empty, i)
	}
	hundred := gitWithStdin(t, mal, chunks.String(), "mktree")
	var hundreds strings.Builder
	for i := range 50 { // 5,000 chunks, past the 4,096 entries any round reads
		fmt.Fprintf(&hundreds, "040000 tree %s\t%03d\n", hundred, i)
	}
	month := gitWithStdin(t, mal, hundreds.String(), "mktree")
	log := gitWithStdin(t, mal, "040000 tree "+month+"\t2026-01\n", "mktree")
	root := gitWithStdin(t, mal, testgit.Run(t, mal, "ls-tree", "refs/l")+"\n040000 tree "+log+"\tassignments\n", "mktree")
	swarm := testgit.Run(t, mal, "commit-tree", root, "-p", "refs/l", "-m", "swarm")
	testgit.Run(t, mal, "push", "-q", "origin", swarm+":"+ledger.Ref)

	res := b.sync(t)
	if len(res.SetAside) != 1 || res.SetAside[0].Commit != swarm || !strings.Contains(res.SetAside[0].Reason, "new chunks and directories, holding 0 bytes") {
		t.Fatalf("set aside: %+v", res.SetAside)
	}
	if got := b.inbox(t, "bob"); len(got) != 1 {
		t.Fatalf("the honest message under the swarm: %v", got)
	}
	if remoteTip(t, b) == swarm {
		t.Fatal("the swarm is still the remote's ledger")
	}
}

// gitWithStdin runs git in dir with stdin and returns its trimmed output.
func gitWithStdin(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}
