package gitrepo

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestStreamGivesGitsBytes streams blobs stored every way git stores them
// (loose, whole in a pack, as a delta in a pack) and compares each with
// what was committed.
func TestStreamGivesGitsBytes(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	var log strings.Builder
	var ids, contents []string
	for round := range 3 {
		for i := range 2000 {
			fmt.Fprintf(&log, `{"id":"qm-%d-%d","body":"line %d of round %d"}`+"\n", round, i, i, round)
		}
		testgit.Write(t, repo, "log.jsonl", log.String())
		testgit.Run(t, repo, "add", "log.jsonl")
		testgit.Run(t, repo, "commit", "-q", "-m", fmt.Sprint("round ", round))
		ids = append(ids, strings.TrimSpace(testgit.Run(t, repo, "rev-parse", "HEAD:log.jsonl")))
		contents = append(contents, log.String())
	}
	check := func(layout string) {
		objects := OpenObjects(filepath.Join(repo, ".git"))
		defer objects.Close()
		for i, id := range ids {
			want := contents[i]
			if size := strings.TrimSpace(testgit.Run(t, repo, "cat-file", "-s", id)); size != fmt.Sprint(len(want)) {
				t.Fatalf("git says %s holds %s bytes, not %d", id, size, len(want))
			}
			oid, _ := hex.DecodeString(id)
			kind, size, rc, err := objects.Stream(oid)
			if err != nil {
				t.Fatalf("%s %s: %v", layout, id, err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || kind != "blob" || size != int64(len(want)) || string(got) != want {
				t.Fatalf("%s %s: %s of %d bytes, read %d (%v), want %d", layout, id, kind, size, len(got), err, len(want))
			}
		}
	}
	check("loose")
	testgit.Run(t, repo, "gc", "-q", "--aggressive")
	if out := testgit.Run(t, repo, "verify-pack", "-v", packIndex(t, repo)); !strings.Contains(out, "chain length = ") {
		t.Fatalf("the versions were not packed as deltas:\n%s", out)
	}
	check("packed")
}

// TestStreamRefusesADamagedObject: a loose object whose content stops
// before its header's size is an error, never a shorter blob.
func TestStreamRefusesADamagedObject(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	path := filepath.Join(repo, ".git", "objects", "ab", strings.Repeat("cd", 19))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, deflate([]byte("blob 100\x00only twenty-one bytes")), 0o644); err != nil {
		t.Fatal(err)
	}
	oid, _ := hex.DecodeString("ab" + strings.Repeat("cd", 19))
	objects := OpenObjects(filepath.Join(repo, ".git"))
	defer objects.Close()
	_, _, rc, err := objects.Stream(oid)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if got, err := io.ReadAll(rc); err == nil {
		t.Fatalf("read %q without an error", got)
	}
}

func packIndex(t *testing.T, repo string) string {
	idx, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("%d pack indexes", len(idx))
	}
	return idx[0]
}

func deflate(b []byte) []byte {
	var buf bytes.Buffer
	z := zlib.NewWriter(&buf)
	z.Write(b)
	z.Close()
	return buf.Bytes()
}

// TestForgetOnlyDropsMappedPages: Forget leaves bytes it did not map
// alone (dropping heap pages would zero them), and a mapped file's
// forgotten pages read back the same.
func TestForgetOnlyDropsMappedPages(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	text := strings.Repeat(`{"id":"qm-1","body":"forgotten and read again"}`+"\n", 100000)
	testgit.Write(t, repo, "log.jsonl", text)
	testgit.Run(t, repo, "add", "log.jsonl")
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := r.Staged()
	if err != nil || len(changes) != 1 {
		t.Fatalf("%v %v", changes, err)
	}
	c := r.OpenContent()
	defer c.Close()
	heap := []byte(text)
	c.Forget(heap)
	if string(heap) != text {
		t.Fatal("Forget changed bytes of the heap")
	}
	data, release, err := c.Staged(changes[0])
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	c.Forget(data)
	if string(data) != text {
		t.Fatal("a forgotten mapping reads back other bytes")
	}
}

// Staged returns the bytes the commit will hold at ch.Path. The bytes may
// be a mapping of the worktree file, valid until release.
func (c *Content) Staged(ch Change) (data []byte, release func(), err error) {
	data, release, _, err = c.StagedFile(ch, nil)
	return data, release, err
}
