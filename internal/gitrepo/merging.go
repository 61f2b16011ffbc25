package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The plumbing of merges that git-queen repairs or makes: the index's
// stages of an unmerged path, and git's own text merge for what the
// merge driver cannot merge by record.

// IndexStages returns the base, ours and theirs versions the index holds
// of the unmerged path rel (relative to top): nil when it is not unmerged,
// an empty base when both sides added it.
func IndexStages(top, rel string) ([][]byte, error) {
	if top == "" {
		return nil, nil
	}
	out, err := Git(top, "ls-files", "-u", "-z", "--", literal(rel))
	if err != nil || out == "" {
		return nil, nil
	}
	blobs, err := (&Repo{TopLevel: top}).OpenBlobs()
	if err != nil {
		return nil, err
	}
	defer blobs.Close()
	stages := make([][]byte, 3)
	for _, entry := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		// "mode sha stage\tpath"
		meta, path, _ := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if path != rel || len(f) != 3 || f[2][0] < '1' || f[2][0] > '3' {
			continue
		}
		stage := int(f[2][0] - '1')
		blob, ok, err := blobs.Read(f[1])
		if err == nil && !ok {
			err = errors.New("missing")
		}
		if err != nil {
			return nil, fmt.Errorf("read stage %d of %s: %w", stage+1, rel, err)
		}
		stages[stage] = blob
	}
	if stages[0] == nil {
		stages[0] = []byte{} // both added the file: an empty base
	}
	return stages, nil
}

// MergeFile is `git merge-file -p` on three versions of the file path
// (for the conflict labels), with markers of markerSize and the
// repository's merge.conflictStyle: conflict is true when git left
// markers in the result.
func MergeFile(dir, path string, markerSize int, base, ours, theirs []byte) (result []byte, conflict bool, err error) {
	tmp, err := os.MkdirTemp("", "git-queen-merge-")
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(tmp)
	names := []string{"ours", "base", "theirs"}
	for i, b := range [][]byte{ours, base, theirs} {
		if err := os.WriteFile(filepath.Join(tmp, names[i]), b, 0o600); err != nil {
			return nil, false, err
		}
	}
	args := []string{"merge-file", "-p", "--marker-size=" + strconv.Itoa(markerSize)}
	switch style, _ := Git(dir, "config", "--get", "merge.conflictStyle"); strings.TrimSpace(style) {
	case "diff3":
		args = append(args, "--diff3")
	case "zdiff3":
		args = append(args, "--zdiff3")
	}
	if path == "" {
		path = "file"
	}
	args = append(args, "-L", "ours:"+path, "-L", "base:"+path, "-L", "theirs:"+path, "--",
		filepath.Join(tmp, "ours"), filepath.Join(tmp, "base"), filepath.Join(tmp, "theirs"))
	out, err := Command{Dir: dir, Args: args}.Run()
	if exit, ok := errors.AsType[*exec.ExitError](err); ok && exit.ExitCode() > 0 && exit.ExitCode() < 128 {
		return []byte(out), true, nil // the number of conflicts
	}
	if err != nil {
		return nil, false, err
	}
	return []byte(out), false, nil
}
