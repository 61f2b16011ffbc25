package transport

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// Refetch is Fetch without negotiation: every object refspec reaches
// comes again, as in a fresh clone. A repository that lost an object
// while one of its refs still reaches it gets it back so: a plain fetch
// takes that ref's word that the object is here, and never sends it. It
// writes the refs Fetch writes, and no other. git 2.36 and later do it
// with git fetch --refetch; with an older git the objects are fetched
// aside first, then Fetch finds them here and writes the ref
// (refetchAside). The error is an *Error, or the file system's when
// the objects could not be moved in.
func Refetch(dir, remote, refspec string, limit time.Duration) error {
	if gitrepo.GitAtLeast(gitrepo.RefetchGit) {
		return fetch(dir, remote, refspec, limit, "--refetch")
	}
	return refetchAside(dir, remote, refspec, limit)
}

// refetchAside is Refetch for a git before 2.36: fetchAside, then Fetch.
func refetchAside(dir, remote, refspec string, limit time.Duration) error {
	if err := fetchAside(dir, remote, refspec, limit); err != nil {
		return err
	}
	return fetch(dir, remote, refspec, limit)
}

// asidePrefix begins the name of fetchAside's object directories, made
// in the repository's objects directory (the file system of its packs).
// git reads there only the loose object directories, pack and info, so
// one that a kill left behind is harmless, and the next fetchAside
// removes it.
const asidePrefix = "queen-refetch-"

// fetchAside runs Fetch's git fetch of refspec with --dry-run, which
// writes no ref and no FETCH_HEAD but keeps the objects it brings, into
// a new, empty object directory (runFetch): git has nothing there, so it
// asks for every object, while the repository's configuration (remotes,
// insteadOf, credentials) still applies. The pack that comes then moves
// into the repository's objects (movePack). git's last check of that fetch
// (rev-list --not --all) fails, as the repository's refs name objects
// the directory lacks, so its exit status is not the verdict: a git that
// exited once the pack's index was written has brought the pack whole
// (index-pack writes the index last, having hashed every object). Nothing
// comes when the remote has no ref refspec matches.
func fetchAside(dir, remote, refspec string, limit time.Duration) error {
	objects, err := gitrepo.ObjectsDir(dir)
	if err != nil {
		return err
	}
	removeStaleAside(objects, limit)
	aside, err := os.MkdirTemp(objects, asidePrefix+"*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(aside)
	stderr, err := runFetch(dir, aside, remote, refspec, limit, "--dry-run")
	indexes, _ := filepath.Glob(filepath.Join(aside, "pack", "pack-*.idx"))
	if _, exited := errors.AsType[*exec.ExitError](err); err != nil && (!exited || len(indexes) == 0) {
		return failure(stderr, err)
	}
	for _, idx := range indexes {
		if err := movePack(idx, filepath.Join(objects, "pack")); err != nil {
			return err
		}
	}
	return nil
}

// movePack moves the pack whose index is idx into the pack directory
// dir, the index last: git finds a pack by its index, so the objects
// appear at once, and whole. A file of that name there already holds
// the same bytes (git names a pack by its checksum), and stays. A file
// that cannot be renamed there, on another file system, is copied.
func movePack(idx, dir string) error {
	base := strings.TrimSuffix(idx, ".idx")
	for _, ext := range []string{".pack", ".rev", ".idx"} {
		from, to := base+ext, filepath.Join(dir, filepath.Base(base)+ext)
		if _, err := os.Stat(from); ext == ".rev" && errors.Is(err, fs.ErrNotExist) {
			continue // written only with pack.writeReverseIndex
		}
		if _, err := os.Stat(to); err == nil {
			continue
		}
		err := os.Rename(from, to)
		if errors.Is(err, syscall.EXDEV) {
			err = copyInto(from, to)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// copyInto copies the file from to the path to, on another file system
// (objects/pack a link to another disk), where from cannot be renamed:
// into a temporary file beside to first, renamed to it once whole and on
// disk. Its name begins with tmp_, which git gc removes after a kill.
func copyInto(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), "tmp_"+asidePrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, src)
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444) // as git leaves a pack
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), to)
}

// removeStaleAside removes the directories of fetchAside in objects made
// longer than limit ago: the git fetching into one was killed by then,
// and so, since the directory stayed, was the process that made it.
func removeStaleAside(objects string, limit time.Duration) {
	entries, _ := os.ReadDir(objects)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() && strings.HasPrefix(e.Name(), asidePrefix) && time.Since(info.ModTime()) > limit {
			os.RemoveAll(filepath.Join(objects, e.Name()))
		}
	}
}
