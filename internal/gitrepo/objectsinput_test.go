package gitrepo

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/testgit"
)

// Objects read what they wrote, bounds reads by the object's
// header, tells a missing object apart, and finds objects git packed
// after it listed the packs.
func TestObjectsReadWithGitAndWrite(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	s := OpenObjects(filepath.Join(dir, ".git"))
	defer s.Close()
	id, err := s.Write(object.BlobType, []byte("abc"))
	if err != nil || id.String() != "f2ba8f84ab5c1bce84a7b441cb1959cfc7093b7f" { // git hash-object of "abc"
		t.Fatalf("Write: %s, %v", id, err)
	}
	if again, err := s.Write(object.BlobType, []byte("abc")); again != id || err != nil || !s.Has(id) {
		t.Fatalf("second Write: %s, %v", again, err)
	}
	if kind, data, err := s.ReadWithGit(id, 3); kind != "blob" || string(data) != "abc" || err != nil {
		t.Fatalf("Read: %s %q %v", kind, data, err)
	}
	var tooLarge *TooLargeError
	if _, _, err := s.ReadWithGit(id, 2); !errors.As(err, &tooLarge) || tooLarge.Size != 3 || tooLarge.Kind != "blob" {
		t.Fatalf("Read over the bound: %v", err)
	}
	if kind, size, err := s.HeaderWithGit(id); kind != "blob" || size != 3 || err != nil {
		t.Fatalf("Header: %s %d %v", kind, size, err)
	}
	missing, _ := object.ParseHex(strings.Repeat("ab", 20))
	if _, _, err := s.ReadWithGit(missing, 10); !errors.Is(err, ErrObjectMissing) {
		t.Fatalf("Read of a missing object: %v", err)
	}
	if _, _, err := s.HeaderWithGit(missing); !errors.Is(err, ErrObjectMissing) || s.Has(missing) {
		t.Fatalf("Header of a missing object: %v", err)
	}
	// Packed by git after the store listed the packs, the loose copy gone.
	testgit.Write(t, dir, "later", "later\n")
	later, _ := object.ParseHex(testgit.Run(t, dir, "hash-object", "-w", "later"))
	testgit.Run(t, dir, "add", "later")
	testgit.Run(t, dir, "commit", "-qm", "later")
	testgit.Run(t, dir, "gc", "-q", "--prune=now")
	if kind, data, err := s.ReadWithGit(later, 100); kind != "blob" || string(data) != "later\n" || err != nil {
		t.Fatalf("Read after gc: %s %q %v", kind, data, err)
	}
}

// One policy for SHA-256, tested on a real SHA-256 repository: the object
// format check the ledger opens with refuses it with a *object.FormatError; the staged
// diff meets the same check, says why it asks git, and git answers.
func TestSHA256RepositoryOnePolicy(t *testing.T) {
	testgit.Isolate(t)
	dir := t.TempDir()
	testgit.Run(t, dir, "init", "-q", "--object-format=sha256", "-b", "main")
	testgit.Write(t, dir, "README", "x\n")
	testgit.Run(t, dir, "add", "README")
	testgit.Run(t, dir, "commit", "-qm", "one")
	testgit.Write(t, dir, "src/x", "x\n")
	testgit.Run(t, dir, "add", "src/x")
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = CheckObjectFormat(r.CommonDir)
	var format *object.FormatError
	if !errors.As(err, &format) || format.Format != "sha256" || !errors.Is(err, object.ErrUnsupportedFormat) ||
		!strings.Contains(err.Error(), "the ledger needs a SHA-1 repository, and this one uses sha256 objects") {
		t.Fatalf("CheckObjectFormat: %v", err)
	}
	if inProcess, why := r.StagedInProcess(); inProcess || why != "sha256 objects" {
		t.Fatalf("StagedInProcess: %v %q", inProcess, why)
	}
	got, err := r.Staged()
	if err != nil || !slices.Equal(changeList(got), []string{"A src/x"}) || len(got[0].Staged) != 64 {
		t.Fatalf("Staged: %v %v", got, err)
	}
}
