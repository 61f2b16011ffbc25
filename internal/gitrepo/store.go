package gitrepo

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
)

// ObjectStore reads and writes the objects of one repository for the
// ledger, whose objects are input from other clones: every read is
// bounded, and says what went wrong in a type the caller can tell apart
// (missing, too large, git failing). It reads in process (Objects),
// listing the packs again and then asking `git cat-file` where that
// declines, and writes loose objects with object.WriteLoose.
type ObjectStore struct {
	commonDir string
	in        *Objects
	git       *Blobs // started on first need
}

// ErrObjectMissing is an object neither the in-process reader nor git has.
var ErrObjectMissing = errors.New("object not found")

// GitFailure is git cat-file failing to start or to answer: a problem of
// this machine, not of the objects.
type GitFailure struct{ Err error }

func (e *GitFailure) Error() string { return e.Err.Error() }
func (e *GitFailure) Unwrap() error { return e.Err }

// CheckObjectFormat is object.CheckFormat for the repository whose common
// git directory is commonDir (its extensions.objectFormat), read without
// starting git.
func CheckObjectFormat(commonDir string) error {
	v, _ := (&Repo{CommonDir: commonDir}).LocalConfig("extensions.objectformat")
	return object.CheckFormat(v)
}

// OpenObjectStore opens the objects of the repository whose common git
// directory is commonDir. A repository of another object format than
// SHA-1 is a *object.FormatError.
func OpenObjectStore(commonDir string) (*ObjectStore, error) {
	if err := CheckObjectFormat(commonDir); err != nil {
		return nil, err
	}
	return &ObjectStore{commonDir: commonDir, in: OpenObjects(commonDir)}, nil
}

// Close releases the mapped packs and the git process a read may have
// started.
func (s *ObjectStore) Close() error {
	err := s.in.Close()
	if s.git != nil {
		err = errors.Join(err, s.git.Close())
	}
	return err
}

// Refresh lists the packs again: for callers that just had git write
// objects (a fetch), so that they are found whether git unpacked them or
// kept a pack.
func (s *ObjectStore) Refresh() { s.in.Refresh() }

// Read returns an object's type and content, when it has at most max
// bytes. Errors: *TooLargeError (found from the object's header, its
// content unread), ErrObjectMissing, *GitFailure, or another that says
// why the object cannot be read (it does not inflate, a bad delta...).
func (s *ObjectStore) Read(id object.ID, max int64) (kind string, data []byte, err error) {
	kind, data, err = s.in.ReadAtMost(id[:], max)
	if IsNotInProcess(err) {
		// A pack written since the packs were listed (a fetch, a gc):
		// list them again, then ask git.
		s.in.Refresh()
		if kind, data, err = s.in.ReadAtMost(id[:], max); IsNotInProcess(err) {
			kind, data, err = s.readWithGit(id, max)
		}
	}
	return kind, data, err
}

// Header returns an object's type and size from its header, with the
// errors of Read.
func (s *ObjectStore) Header(id object.ID) (kind string, size int64, err error) {
	kind, size, err = s.in.Header(id[:])
	if IsNotInProcess(err) {
		s.in.Refresh()
		if kind, size, err = s.in.Header(id[:]); IsNotInProcess(err) {
			// git tells the type and size of an object it will not hand
			// over: any object larger than nothing is "too large" here.
			var tooLarge *TooLargeError
			var data []byte
			kind, data, err = s.readWithGit(id, 0)
			if size = int64(len(data)); errors.As(err, &tooLarge) {
				kind, size, err = tooLarge.Kind, tooLarge.Size, nil
			}
		}
	}
	return kind, size, err
}

func (s *ObjectStore) readWithGit(id object.ID, max int64) (string, []byte, error) {
	if s.git == nil {
		git, err := OpenObjectsWithGit(s.commonDir)
		if err != nil {
			return "", nil, &GitFailure{err}
		}
		s.git = git
	}
	kind, data, ok, err := s.git.ReadTypedAtMost(id.String(), max)
	var tooLarge *TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return "", nil, err
	case err != nil:
		s.git.Close()
		s.git = nil
		return "", nil, &GitFailure{err}
	case !ok:
		return "", nil, ErrObjectMissing
	}
	return kind, data, nil
}

// Has reports whether the object exists already (loose, or in a pack).
func (s *ObjectStore) Has(id object.ID) bool {
	name := id.String()
	if _, err := os.Stat(filepath.Join(s.in.dir, name[:2], name[2:])); err == nil {
		return true
	}
	_, _, err := s.in.Header(id[:])
	return err == nil
}

// Write stores content as an object of type t, a loose one unless the
// repository has it already, and returns its id.
func (s *ObjectStore) Write(t object.Type, content []byte) (object.ID, error) {
	id := object.Hash(t, content)
	if s.Has(id) {
		return id, nil
	}
	return id, object.WriteLoose(s.in.dir, id, t, content)
}
