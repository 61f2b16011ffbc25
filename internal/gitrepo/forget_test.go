package gitrepo

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// Forget drops the mapped packs' pages and loses nothing: every object
// reads the same after it, while reads run alongside.
func TestForgetLosesNoBytes(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	for i := range 20 {
		testgit.Write(t, repo, fmt.Sprintf("f%d.txt", i), strings.Repeat(fmt.Sprintf("line %d of a chunk\n", i), 3000))
	}
	testgit.Run(t, repo, "add", ".")
	testgit.Run(t, repo, "commit", "-q", "-m", "chunks")
	testgit.Run(t, repo, "repack", "-adq")
	objs := OpenObjects(filepath.Join(repo, ".git"))
	defer objs.Close()
	ids := strings.Fields(testgit.Run(t, repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
	read := func() map[string][]byte {
		out := map[string][]byte{}
		for _, id := range ids {
			oid, _ := hex.DecodeString(id)
			_, data, err := objs.Read(oid)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			out[id] = data
		}
		return out
	}
	before := read()
	if packs := objs.r.packList(); len(packs) != 1 || !packs[0].mapped {
		t.Fatal("the pack is not mapped: Forget has nothing to drop, and this tests nothing")
	}
	done := make(chan map[string][]byte)
	go func() { done <- read() }()
	for range 50 {
		objs.Forget()
	}
	during, after := <-done, read()
	for _, id := range ids {
		if !bytes.Equal(during[id], before[id]) || !bytes.Equal(after[id], before[id]) {
			t.Fatalf("%s reads differently once its pages were dropped", id)
		}
	}
}
