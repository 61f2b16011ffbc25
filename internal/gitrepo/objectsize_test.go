package gitrepo

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// Header must give what git cat-file gives for every object, loose and
// packed, deltas included; ReadAtMost must refuse what is over its bound
// and read the rest exactly.
func TestHeaderAgreesWithGit(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	// Blobs that differ a little, so that repack stores most as deltas.
	base := strings.Repeat("a reservation line of some length\n", 400)
	for i := range 12 {
		testgit.Write(t, repo, fmt.Sprintf("f%d.txt", i), base+strings.Repeat("x", i*37)+"\n")
		testgit.Run(t, repo, "add", ".")
		testgit.Run(t, repo, "commit", "-q", "-m", fmt.Sprint(i))
	}
	check := func(stage string) {
		t.Helper()
		ids := strings.Fields(testgit.Run(t, repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
		if len(ids) < 30 {
			t.Fatalf("%s: only %d objects", stage, len(ids))
		}
		objs := OpenObjects(filepath.Join(repo, ".git"))
		defer objs.Close()
		for _, id := range ids {
			oid, _ := hex.DecodeString(id)
			kind, size, err := objs.Header(oid)
			if err != nil {
				t.Fatalf("%s: %s: %v", stage, id, err)
			}
			wantKind := strings.TrimSpace(testgit.Run(t, repo, "cat-file", "-t", id))
			wantSize, _ := strconv.ParseInt(strings.TrimSpace(testgit.Run(t, repo, "cat-file", "-s", id)), 10, 64)
			if kind != wantKind || size != wantSize {
				t.Errorf("%s: %s: %s %d, git says %s %d", stage, id, kind, size, wantKind, wantSize)
			}
			_, data, err := objs.ReadAtMost(oid, size)
			if err != nil || int64(len(data)) != size {
				t.Errorf("%s: %s: ReadAtMost(its size) gave %d bytes, %v", stage, id, len(data), err)
			}
			if size > 0 {
				var tooLarge *TooLargeError
				if _, _, err := objs.ReadAtMost(oid, size-1); !errors.As(err, &tooLarge) || tooLarge.Size != size {
					t.Errorf("%s: %s: ReadAtMost(size-1) = %v, want a TooLargeError of %d bytes", stage, id, err, size)
				}
			}
		}
	}
	check("loose")
	testgit.Run(t, repo, "repack", "-adq", "--depth=20", "--window=20")
	if deltas := testgit.Run(t, repo, "verify-pack", "-v", filepath.Join(repo, ".git", "objects", "pack", onlyPack(t, repo))); !strings.Contains(deltas, "chain length") {
		t.Fatalf("the pack holds no deltas, so this tests less than it says:\n%s", deltas)
	}
	check("packed")
}

func onlyPack(t *testing.T, repo string) string {
	t.Helper()
	idx, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("%d packs", len(idx))
	}
	return filepath.Base(idx[0])
}

// The git fallback skips an object over the bound without holding it,
// and stays in step for the next read.
func TestReadTypedAtMostSkipsLargeObjects(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	big := testgit.Run(t, repo, "hash-object", "-w", testgit.Write(t, repo, "big", strings.Repeat("b", 5000)))
	small := testgit.Run(t, repo, "hash-object", "-w", testgit.Write(t, repo, "small", "s"))
	b, err := OpenObjectsWithGit(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var tooLarge *TooLargeError
	if _, _, _, err := b.ReadTypedAtMost(strings.TrimSpace(big), 4999); !errors.As(err, &tooLarge) || tooLarge.Size != 5000 {
		t.Fatalf("big: %v", err)
	}
	kind, data, ok, err := b.ReadTypedAtMost(strings.TrimSpace(small), 4999)
	if err != nil || !ok || kind != "blob" || string(data) != "s" {
		t.Fatalf("small after big: %q %q %v %v", kind, data, ok, err)
	}
}

// A staged loose object whose header claims a terabyte is an error, not an
// allocation of what it claims (which killed the hook, out of memory) nor
// a wait for bytes git will not send.
func TestLooseObjectClaimingATerabyte(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Write(t, repo, "log.jsonl", "abc")
	testgit.Run(t, repo, "add", "log.jsonl")
	id := strings.TrimSpace(testgit.Run(t, repo, "rev-parse", ":log.jsonl"))
	var lie bytes.Buffer
	z := zlib.NewWriter(&lie)
	z.Write([]byte("blob 1099511627776\x00abc"))
	z.Close()
	path := filepath.Join(repo, ".git", "objects", id[:2], id[2:])
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, lie.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.Write(t, repo, "log.jsonl", "not the staged bytes") // read from the object store
	c, change := openOnlyChange(t, repo)
	defer c.Close()
	if data, _, err := c.Staged(change); err == nil || !strings.Contains(err.Error(), id) {
		t.Errorf("read %d bytes, %v; want an error naming the object", len(data), err)
	}
}
