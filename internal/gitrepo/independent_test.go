package gitrepo

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/testgit"
)

// commitsForIndependent writes a root, six commits on it and a merge of
// the first two, and returns them and those under none of the others.
func commitsForIndependent(t *testing.T) (*Objects, []object.ID, []object.ID) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	empty := testgit.Run(t, dir, "hash-object", "-t", "tree", "-w", "--stdin")
	commit := func(msg string, parents ...string) string {
		args := []string{"commit-tree", "-m", msg}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		return testgit.Run(t, dir, append(args, empty)...)
	}
	root := commit("root")
	hex := []string{root}
	for i := range 6 {
		hex = append(hex, commit(fmt.Sprint("c", i), root))
	}
	hex = append(hex, commit("merge", hex[1], hex[2]))
	var all []object.ID
	for _, h := range hex {
		id, ok := object.ParseHex(h)
		if !ok {
			t.Fatalf("commit-tree said %q", h)
		}
		all = append(all, id)
	}
	o := OpenObjects(filepath.Join(dir, ".git"))
	t.Cleanup(func() { o.Close() })
	return o, all, []object.ID{all[3], all[4], all[5], all[6], all[7]}
}

// Independent is given any number of commits: 60,000 ids (a ledger
// merge's runs each name theirs) are more than one command line holds
// (2 MB on Linux, 32 KB on Windows, some 780 ids), and git failed to
// start: "argument list too long".
func TestIndependentOfMoreCommitsThanACommandLineHolds(t *testing.T) {
	o, all, want := commitsForIndependent(t)
	var many []object.ID
	for len(many) < 60_000 {
		many = append(many, all...)
	}
	got, err := o.Independent(many)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Independent of %d ids: %v %v, want %v", len(many), got, err, want)
	}
}

// Commits beyond one batch are judged in batches that give git's answer,
// in git's order (the order given), whatever the order and the batch.
func TestIndependentInBatchesGivesGitsAnswer(t *testing.T) {
	o, all, _ := commitsForIndependent(t)
	defer func(n int) { independentBatch = n }(independentBatch)
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {7, 6, 5, 4, 3, 2, 1, 0}, {3, 7, 0, 5, 1, 6, 2, 4}} {
		ids := make([]object.ID, len(order))
		for i, k := range order {
			ids[i] = all[k]
		}
		independentBatch = len(ids)
		want, err := o.Independent(ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{2, 3, 4, 5} {
			independentBatch = batch
			if got, err := o.Independent(ids); err != nil || !slices.Equal(got, want) {
				t.Errorf("order %v in batches of %d: %v %v, want %v", order, batch, got, err, want)
			}
		}
	}
}
