package object

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// rawTree is a tree's bytes from "MODE NAME" strings, each with the id
// 0101...01, in the order given.
func rawTree(entries ...string) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(e)
		b.WriteByte(0)
		b.Write(bytes.Repeat([]byte{1}, Size))
	}
	return b.Bytes()
}

// The one tree parser refuses what git would not write, with the reason
// the ledger shows in its DamageError.
func TestDecodeTreeRefusesMalformedTrees(t *testing.T) {
	cases := []struct {
		name   string
		data   []byte
		reason string
	}{
		{"truncated id", rawTree("100644 a")[:20], "the tree is truncated or not a tree"},
		{"no space", []byte("100644a\x00" + strings.Repeat("x", Size)), "the tree is truncated or not a tree"},
		{"no mode", rawTree(" a"), `the tree has a bad mode ""`},
		{"not octal", rawTree("100648 a"), `the tree has a bad mode "100648"`},
		{"over 32 bits", rawTree("77777777777 a"), `the tree has a bad mode "77777777777"`},
		{"empty name", rawTree("100644 "), `the tree has an entry named ""`},
		{"dot dot", rawTree("40000 .."), `the tree has an entry named ".."`},
		{"slash", rawTree("100644 a/b"), `the tree has an entry named "a/b"`},
		{"out of order", rawTree("100644 b", "100644 a"), `the tree lists "a" out of order or twice`},
		{"twice", rawTree("100644 a", "100644 a"), `the tree lists "a" out of order or twice`},
		{"a file and a directory of one name", rawTree("100644 a", "100644 a.b", "40000 a"), `the tree lists "a" out of order or twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeTree(c.data)
			var m *MalformedError
			if !errors.As(err, &m) || err.Error() != c.reason {
				t.Fatalf("DecodeTree: %v, want %q", err, c.reason)
			}
		})
	}
}

// The mode rule: an entry keeps the mode written; Canonical is git's
// canon_mode.
func TestModes(t *testing.T) {
	for written, canonical := range map[string]Mode{
		"100644": RegularMode, "100664": RegularMode, "0100644": RegularMode, "100755": ExecutableMode,
		"100775": ExecutableMode, "40000": DirMode, "40755": DirMode, "120000": SymlinkMode, "120777": SymlinkMode,
		"160000": GitlinkMode, "170000": GitlinkMode, "0": GitlinkMode, "644": GitlinkMode,
	} {
		tr, err := DecodeTree(rawTree(written + " x"))
		if err != nil {
			t.Fatalf("%s: %v", written, err)
		}
		if got := fmt.Sprintf("%o", uint32(tr.Entries[0].Mode)); got != strings.TrimLeft(written, "0") && written != "0" {
			t.Errorf("%s is kept as %s", written, got)
		}
		if got := Canonical(tr.Entries[0].Mode); got != canonical {
			t.Errorf("Canonical(%s) = %o, want %o", written, uint32(got), uint32(canonical))
		}
	}
}

// A tree edited with Set and encoded has the id git's mktree gives the
// same entries, and decodes to what was set.
func TestTreeEncodeMatchesGit(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	blob := Hash(BlobType, []byte("x\n"))
	sub := Hash(TreeType, nil)
	tr := &Tree{}
	var listing strings.Builder
	for _, e := range []Entry{
		{"b.jsonl", RegularMode, blob}, {"a", DirMode, sub}, {"a.b", RegularMode, blob},
		{"run", ExecutableMode, blob}, {"FORMAT", RegularMode, blob}, {"2026-11", DirMode, sub},
	} {
		tr.Set(e.Name, e.Mode, e.ID)
		kind := map[bool]string{true: "tree", false: "blob"}[e.Mode == DirMode]
		fmt.Fprintf(&listing, "%06o %s %s\t%s\n", uint32(e.Mode), kind, e.ID, e.Name)
	}
	tr.Set("gone", RegularMode, blob)
	tr.Set("gone", RegularMode, ID{})
	want := gitWithInput(t, dir, []byte(listing.String()), "mktree", "--missing")
	if got := Hash(TreeType, tr.Encode()); got.String() != want {
		t.Fatalf("encoded tree %s, git mktree %s", got, want)
	}
	back, err := DecodeTree(tr.Encode())
	if err != nil || len(back.Entries) != len(tr.Entries) {
		t.Fatalf("decode: %v, %d entries", err, len(back.Entries))
	}
	for i := range back.Entries {
		if back.Entries[i] != tr.Entries[i] {
			t.Fatalf("entry %d: %+v, set %+v", i, back.Entries[i], tr.Entries[i])
		}
	}
	if last, _ := tr.Last(); last.Name != "run" {
		t.Fatalf("last entry %q", last.Name)
	}
}

// The mode is read as the ledger always read it, strconv.ParseUint(mode,
// 8, 32): the same modes are refused, the others have the same value.
func FuzzNextEntryMode(f *testing.F) {
	for _, m := range []string{"100644", "40000", "040000", "", "0", "100648", "37777777777", "40000000000",
		"000000000000000100644", "000000000000000x", "77777777777777777777777", "+7", "-7", "0o7", "1_0"} {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, m string) {
		if strings.ContainsAny(m, " \x00") {
			return
		}
		mode, _, _, _, err := NextEntry(rawTree(m + " x"))
		want, perr := strconv.ParseUint(m, 8, 32)
		if (err != nil) != (perr != nil) || err == nil && uint64(mode) != want {
			t.Fatalf("mode %q: %o, %v; ParseUint: %o, %v", m, uint32(mode), err, want, perr)
		}
	})
}
