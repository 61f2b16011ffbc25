package object

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// gitWithInput runs git in dir with stdin and returns its trimmed output.
func gitWithInput(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// An object id that parses and one that does not.
func TestParseHex(t *testing.T) {
	id := hex.EncodeToString(bytes.Repeat([]byte{0xab}, 20))
	sha256 := strings.Repeat("ab", 32)
	for s, want := range map[string]bool{id: true, strings.ToUpper(id): false, id[:39]: false, id + "0": false, "": false, sha256: false} {
		got, ok := ParseHex(s)
		if ok != want || ok && got.String() != s {
			t.Errorf("ParseHex(%q) = %s, %v", s, got, ok)
		}
	}
}

// The one SHA-256 policy: SHA-1 (set or not) is read and written, any
// other format is a *FormatError that says the ledger needs SHA-1, and is
// ErrUnsupportedFormat.
func TestCheckFormat(t *testing.T) {
	for format, ok := range map[string]bool{"": true, "sha1": true, " SHA1\n": true, "sha256": false, "SHA256": false, "md5": false} {
		err := CheckFormat(format)
		var fe *FormatError
		switch {
		case ok && err != nil:
			t.Errorf("CheckFormat(%q) = %v", format, err)
		case !ok && (!errors.As(err, &fe) || !errors.Is(err, ErrUnsupportedFormat) ||
			!strings.Contains(err.Error(), "the ledger needs a SHA-1 repository") || fe.Format != strings.ToLower(format)):
			t.Errorf("CheckFormat(%q) = %v", format, err)
		}
	}
}

// Hash is the id git gives the same content, and WriteLoose writes an
// object git reads back and fsck accepts.
func TestWriteLooseIsReadByGit(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	for _, c := range []struct {
		t       Type
		kind    string
		content []byte
	}{
		{BlobType, "blob", []byte("a line\n")},
		{BlobType, "blob", nil},
		{BlobType, "blob", bytes.Repeat([]byte("0123456789abcdef"), 1<<14)},
	} {
		id := Hash(c.t, c.content)
		if want := gitWithInput(t, dir, c.content, "hash-object", "-t", c.kind, "--stdin"); id.String() != want {
			t.Fatalf("Hash = %s, git says %s", id, want)
		}
		if err := WriteLoose(dir+"/.git/objects", id, c.t, c.content); err != nil {
			t.Fatal(err)
		}
		if got := gitWithInput(t, dir, nil, "cat-file", c.kind, id.String()); got != strings.TrimSpace(string(c.content)) {
			t.Fatalf("git reads back %d bytes, want %d", len(got), len(c.content))
		}
	}
	testgit.Run(t, dir, "fsck", "--strict")
	if err := WriteLoose(dir+"/.git/objects", Hash(BlobType, []byte("x")), BlobType, []byte("y")); err == nil {
		t.Fatal("WriteLoose wrote content under another content's id")
	}
}
