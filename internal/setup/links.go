package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/jsonl"
)

// checkLinks looks for symbolic links that would carry git-queen's writes
// out of the repository: the live store, the worktree's .beads/ and the
// files in them. A committed `.beads/queen_messages.jsonl -> ~/.bashrc`
// is refused by every write and by the hook; doctor says where it is.
func (r *Repo) checkLinks() Check {
	roots := []string{r.CommonDir, r.TopLevel}
	var out []string
	for _, dir := range []string{r.StoreDir, r.BeadsDir} {
		paths := []string{dir}
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
		for _, p := range paths {
			var outside *jsonl.OutsideError
			if err := jsonl.CheckInside(p, roots); errors.As(err, &outside) {
				out = append(out, fmt.Sprintf("%s -> %s", r.rel(p), outside.Target))
			}
		}
	}
	if len(out) > 0 {
		return Check{Name: "links", Status: Fail, Message: fmt.Sprintf(
			"symbolic links lead out of the repository, and git-queen refuses to write through them: %s; remove them (git rm a committed one)",
			strings.Join(out, ", "))}
	}
	return ok("links", "no symbolic link leads the stores out of the repository")
}
