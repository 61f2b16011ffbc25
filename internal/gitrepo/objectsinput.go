package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
)

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

// ReadWithGit returns an object's type and content, when it has at most
// max bytes, reading it in process, else (after listing the packs again)
// through git. Errors: *TooLargeError (found from the object's header, its
// content unread), ErrObjectMissing, *GitFailure, or another that says
// why the object cannot be read (it does not inflate, a bad delta...).
func (o *Objects) ReadWithGit(id object.ID, max int64) (kind string, data []byte, err error) {
	kind, data, err = o.ReadAtMost(id[:], max)
	if IsNotInProcess(err) {
		// A pack written since the packs were listed (a fetch, a gc):
		// list them again, then ask git.
		o.Refresh()
		if kind, data, err = o.ReadAtMost(id[:], max); IsNotInProcess(err) {
			kind, data, err = o.catFile(id, max)
		}
	}
	return kind, data, err
}

// HeaderWithGit returns an object's type and size from its header, in
// process, else through git, with the errors of ReadWithGit.
func (o *Objects) HeaderWithGit(id object.ID) (kind string, size int64, err error) {
	kind, size, err = o.Header(id[:])
	if IsNotInProcess(err) {
		o.Refresh()
		if kind, size, err = o.Header(id[:]); IsNotInProcess(err) {
			// git tells the type and size of an object it will not hand
			// over: any object larger than nothing is "too large" here.
			var tooLarge *TooLargeError
			var data []byte
			kind, data, err = o.catFile(id, 0)
			if size = int64(len(data)); errors.As(err, &tooLarge) {
				kind, size, err = tooLarge.Kind, tooLarge.Size, nil
			}
		}
	}
	return kind, size, err
}

// UnderWithGit asks git for what is under a commit or a tag, as git reads
// it: a commit's parents, or the object a tag names, peeled to one that is
// no tag. It is for an object too large to read in process, under which a
// walk goes on still.
func (o *Objects) UnderWithGit(id object.ID, kind string) ([]object.ID, error) {
	suffix := "^@"
	if kind == "tag" {
		suffix = "^{}"
	}
	return o.ids("", "rev-parse", "--end-of-options", id.String()+suffix)
}

// independentBatch is the most commits one git merge-base --independent
// is given: they are its arguments (it reads no standard input), and a
// command line holds 32,767 characters on Windows, some 780 SHA-1 ids.
// A variable for tests.
var independentBatch = 300

// Independent returns those of commits that are under none of the others
// (git merge-base --independent), each once, in the order given, as git
// does. More than independentBatch are judged by one walk instead: a
// commit is under another exactly when it is under (or is) a parent of
// that other, so those a git rev-list of every commit's parents lists go,
// at the cost of one walk of the history under them, whatever their number.
func (o *Objects) Independent(commits []object.ID) ([]object.ID, error) {
	seen := map[object.ID]bool{}
	commits = slices.DeleteFunc(slices.Clone(commits), func(c object.ID) bool {
		again := seen[c]
		seen[c] = true
		return again
	})
	if len(commits) <= independentBatch {
		args := []string{"merge-base", "--independent"}
		for _, c := range commits {
			args = append(args, c.String())
		}
		return o.ids("", args...)
	}
	var parents strings.Builder
	for _, c := range commits {
		parents.WriteString(c.String() + "^@\n")
	}
	under, err := o.ids(parents.String(), "rev-list", "--stdin")
	if err != nil {
		return nil, err
	}
	for _, c := range under {
		seen[c] = false
	}
	return slices.DeleteFunc(commits, func(c object.ID) bool { return !seen[c] }), nil
}

// ids runs git in the object store, with input on its standard input,
// and reads the ids it writes.
func (o *Objects) ids(input string, args ...string) ([]object.ID, error) {
	out, err := GitInput("", input, append([]string{"--git-dir", o.commonDir}, args...)...)
	if err != nil {
		return nil, err
	}
	var ids []object.ID
	for _, line := range strings.Fields(out) {
		if id, ok := object.ParseHex(line); ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// catFile reads an object through `git cat-file --batch`, started on
// first need and again after it fails.
func (o *Objects) catFile(id object.ID, max int64) (string, []byte, error) {
	o.gitMu.Lock()
	defer o.gitMu.Unlock()
	if o.git == nil {
		git, err := OpenObjectsWithGit(o.commonDir)
		if err != nil {
			return "", nil, &GitFailure{err}
		}
		o.git = git
	}
	kind, data, ok, err := o.git.ReadTypedAtMost(id.String(), max)
	var tooLarge *TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return "", nil, err
	case err != nil:
		o.git.Close()
		o.git = nil
		return "", nil, &GitFailure{err}
	case !ok:
		return "", nil, ErrObjectMissing
	}
	return kind, data, nil
}

// Has reports whether the object exists already (loose, or in a pack).
func (o *Objects) Has(id object.ID) bool {
	name := id.String()
	if _, err := os.Stat(filepath.Join(o.dir, name[:2], name[2:])); err == nil {
		return true
	}
	_, _, err := o.Header(id[:])
	return err == nil
}

// Write stores content as an object of type t, a loose one unless the
// repository has it already, and returns its id.
func (o *Objects) Write(t object.Type, content []byte) (object.ID, error) {
	id := object.Hash(t, content)
	if o.Has(id) {
		return id, nil
	}
	return id, object.WriteLoose(o.dir, id, t, content)
}
