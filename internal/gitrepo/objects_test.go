package gitrepo

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

func TestApplyDelta(t *testing.T) {
	base := []byte("hello, world of trees")
	// Sizes 21 and 12; copy 5 bytes from 0; insert ", git"; copy 2 from 19.
	delta := []byte{21, 12, 0x91, 0, 5, 5, ',', ' ', 'g', 'i', 't', 0x91, 19, 2}
	got, err := applyDelta(base, delta)
	if err != nil || string(got) != "hello, gites" {
		t.Fatalf("%q %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"base size":      {20, 12},
		"copy past base": {21, 12, 0x91, 18, 5},
		"longer":         {21, 2, 0x91, 0, 5},
		"truncated":      {21, 12, 0x91},
		"insert past":    {21, 12, 9, 'a'},
		"reserved":       {21, 1, 0},
		"shorter":        {21, 12, 0x91, 0, 5},
	} {
		if _, err := applyDelta(base, bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzApplyDelta: a damaged delta is an error, never a panic, and a
// result always has the size the delta declares.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello, world of trees"), []byte{21, 12, 0x91, 0, 5, 5, ',', ' ', 'g', 'i', 't', 0x91, 19, 2})
	f.Add([]byte{}, []byte{0, 0x80, 0x80, 0x80, 0x80, 0x08})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err != nil {
			return
		}
		_, n := binary.Uvarint(delta)
		if size, _ := binary.Uvarint(delta[n:]); uint64(len(out)) != size {
			t.Fatalf("%d bytes, the delta says %d", len(out), size)
		}
	})
}

func TestNextTreeEntryModes(t *testing.T) {
	oid := bytes.Repeat([]byte{1}, oidLen)
	for mode, want := range map[string]uint32{
		"100644": 0o100644, "100664": 0o100644, "100755": 0o100755, "100744": 0o100755,
		"40000": 0o040000, "120000": 0o120000, "160000": 0o160000,
	} {
		data := append([]byte(mode+" name\x00"), oid...)
		got, name, _, rest, err := nextTreeEntry(data)
		if err != nil || got != want || string(name) != "name" || len(rest) != 0 {
			t.Errorf("%s: %o %q %v", mode, got, name, err)
		}
	}
	for _, bad := range []string{"", "100644name\x00", " name\x00", "10064x name\x00", "100644 name"} {
		if _, _, _, _, err := nextTreeEntry(append([]byte(bad), oid...)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// tinyPack is pack data holding a 5-byte tree at 0 and, at the returned
// offset, an OFS delta that copies it whole.
func tinyPack() ([]byte, int) {
	deflate := func(b []byte) []byte {
		var out bytes.Buffer
		w := zlib.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	pack := append([]byte{0x25}, deflate([]byte("hello"))...) // type 2 (tree), size 5
	at := len(pack)
	pack = append(pack, 0x64, byte(at)) // type 6 (OFS delta), size 4, base at 0
	return append(pack, deflate([]byte{5, 5, 0x90, 5})...), at
}

func TestReadPackedDelta(t *testing.T) {
	data, at := tinyPack()
	r := &objectReader{dirs: []string{"/nonexistent"}}
	for _, off := range []int{0, at} {
		kind, got, err := r.readPacked(&packFile{path: "tiny.pack", data: data}, int64(off), 0, true)
		if err != nil || kind != "tree" || string(got) != "hello" {
			t.Fatalf("at %d: %s %q %v", off, kind, got, err)
		}
	}
}

// FuzzReadPacked reads objects out of damaged packs: an error, never a
// panic or a runaway allocation.
func FuzzReadPacked(f *testing.F) {
	pack, at := tinyPack()
	f.Add(pack, uint16(0))
	f.Add(pack, uint16(at))
	f.Fuzz(func(t *testing.T, data []byte, off uint16) {
		r := &objectReader{dirs: []string{"/nonexistent"}}
		p := &packFile{path: "fuzz.pack", data: data}
		if int(off) < len(data) {
			r.readPacked(p, int64(off), 0, true)
		}
	})
}

// Packs are found in a repository whose path holds glob characters (a
// pattern over the path matched none, and every packed object went to git).
func TestPacksFoundUnderAGlobLikePath(t *testing.T) {
	testgit.Isolate(t)
	repo := filepath.Join(testgit.TempDir(t), "g[1]")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, repo, "init", "-q", "-b", "main")
	testgit.Write(t, repo, "README", "packed\n")
	testgit.Run(t, repo, "add", "README")
	testgit.Run(t, repo, "commit", "-q", "-m", "initial")
	testgit.Run(t, repo, "repack", "-adq")
	oid, _ := hex.DecodeString(testgit.Run(t, repo, "rev-parse", "HEAD"))
	objs := OpenObjects(filepath.Join(repo, ".git"))
	defer objs.Close()
	if kind, _, err := objs.Read(oid); err != nil || kind != "commit" {
		t.Fatalf("HEAD read in process: %q, %v", kind, err)
	}
}
