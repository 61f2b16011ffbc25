package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A teammate with push access copies a chunk of the ledger, byte for byte,
// into another chunk of the same month: every version in it is now in the
// ledger twice. bob, who held them already, and carol, who joins the
// ledger afterwards, each receive every version once (bob's own stay in
// his own log); doctor passes for
// both (its stores check failed on the repeated lines), and the team
// works on.
func TestAChunkThePushedLedgerCarriesTwiceIsReceivedOnce(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	h := newHostileTeam(t, r)

	good := h.honest()
	var chunk, blob string
	for _, line := range strings.Split(h.git(nil, "", "ls-tree", "-r", "refs/honest", "messages"), "\n") {
		meta, path, _ := strings.Cut(line, "\t")
		if f := strings.Fields(meta); len(f) == 3 && strings.HasSuffix(path, ".jsonl") {
			chunk, blob = path, f[2]
		}
	}
	if chunk == "" {
		t.Fatal("the honest ledger holds no messages")
	}
	copied := filepath.Dir(chunk) + "/99.jsonl"
	h.push(h.commit(h.tree("100644,"+blob+","+copied), good), "refs/queen/ledger")
	lines := strings.Split(strings.TrimSpace(h.git(nil, "", "cat-file", "blob", blob)), "\n")

	carol := testgit.Clone(t, r)
	mustQueen(t, h.bob, "bob", "sync")
	mustQueen(t, carol, "carol", "init", "--droid", "carol", "--remote", "origin")
	for who, dir := range map[string]string{"bob": h.bob, "carol": carol} {
		received, err := os.ReadFile(filepath.Join(liveDir(t, dir), "received", filepath.Base(messagesFile)))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range lines {
			// bob holds his own versions in his own log, not in received/.
			n := bytes.Count(received, []byte(line+"\n"))
			if n > 1 || who == "carol" && n != 1 {
				t.Errorf("%s received %d times: %s", who, n, line)
			}
		}
		r := gitQueen(t, dir, who, "doctor")
		stores := ""
		for _, line := range strings.Split(r.stdout, "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[1] == "stores" {
				stores = f[0]
			}
		}
		if r.code != 0 || stores != "ok" {
			t.Errorf("%s's doctor (stores %q): %s", who, stores, describeRun([]string{"doctor"}, r))
		}
	}
	h.honestStillWork("a chunk copied into another", "")
}
