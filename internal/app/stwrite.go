package app

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/st"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// StWriteRequest is one write to an st v3 stream (seed 000): one event.
type StWriteRequest struct {
	// File is the stream, relative to the use case's directory.
	File string `json:"file"`
	// Command names the st subcommand, for usage errors ("st status").
	Command string `json:"-"`
	// Change is the event to append. A new item (st.OpUpsert) with no id
	// gets one (st.Append); a comment with no author is the droid's.
	Change st.Change `json:"-"`
	// Interval is the checkpoint interval; zero is
	// st.DefaultCheckpointInterval, as the merge driver's.
	Interval int `json:"-"`
}

// StWriteResult is what one write appended.
type StWriteResult struct {
	File string `json:"file"`
	Op   string `json:"op"`
	// Seq is the event's seq (the watermark it found, plus one).
	Seq int64 `json:"seq"`
	// Checkpoint says a checkpoint of the plan at Seq follows the event.
	Checkpoint bool `json:"checkpoint"`
	// ID and Item are the item the event made or changed (none for init).
	ID   string   `json:"id,omitempty"`
	Item *st.Item `json:"item,omitempty"`
	// Items is how many items the plan holds now.
	Items int `json:"items"`
}

// StWrite appends one event to a stream at watermark + 1, under the
// stream's lock, so that two writers (two droids in one worktree, or two
// processes of one droid) never take the same seq; a checkpoint follows
// when the seed's needs_checkpoint says so. A change the plan refuses (an
// unknown item, a cycle) is a UsageError and writes nothing.
var StWrite = UseCase[StWriteRequest, *StWriteResult]{Name: "st", run: stWrite}

func stWrite(e *Env, r StWriteRequest) (*StWriteResult, error) {
	command := cmp.Or(r.Command, "st")
	if r.File == "" || r.File == "-" {
		return nil, &UsageError{Command: command, Msg: "name the stream file to write (standard input cannot be written)"}
	}
	if r.Interval < 0 {
		return nil, usagef(command, "%s must be 1 or more (0: the default)", wording.Param("checkpoint_interval"))
	}
	c := r.Change
	if err := cmp.Or(records.ValidateText("the step", c.Item.Step), records.ValidateText("the notes' text", c.Item.Notes+c.Notes),
		records.ValidateText("the comment", c.Comment.Text), records.ValidateText("the author", c.Comment.Author)); err != nil {
		return nil, err
	}
	// Writing the plan is work: its droid is seen, as after any command
	// that looked up its identity and workspace (notePresence).
	e.Identity()
	_, _ = e.Workspace()
	path := e.abs(r.File)
	if r.Change.Op == st.OpAddComment && r.Change.Comment.Author == "" {
		me, err := e.RequireIdentity()
		if err != nil {
			return nil, usagef(command, "a comment needs an author: pass %s NAME, or give this worktree a droid identity (--droid NAME, QUEEN_DROID)", wording.Param("author"))
		}
		r.Change.Comment.Author = me
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return nil, &UsageError{Command: command, Msg: fmt.Sprintf("%s: the directory %s does not exist; create it first", r.File, filepath.Dir(path))}
	}
	if err := ledAway(command, r.File, path, "st writes only a stream in the worktree, where git commits it; name a file there"); err != nil {
		return nil, err
	}
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		what := "a symbolic link"
		if info.IsDir() {
			what = "a directory"
		} else if info.Mode()&fs.ModeSymlink == 0 {
			what = "not a regular file"
		}
		return nil, &UsageError{Command: command, Msg: fmt.Sprintf("%s is %s; st writes only a regular file (name the file itself)", r.File, what)}
	}
	lock := jsonl.Lock{Path: streamLockPath(path)}
	var res *StWriteResult
	err := lock.Do(func(*jsonl.Tx) error {
		for range maxReplacedTries {
			var replaced bool
			var err error
			if res, replaced, err = e.stWriteOnce(r, command, path); err != nil || !replaced {
				return err
			}
		}
		return fmt.Errorf("%s was replaced or written to while it was being written, %d times (a git merge, checkout or pull, or another st, under way?); "+
			"wait for it to finish, check 'git queen st show %s', and write again", r.File, maxReplacedTries, r.File)
	})
	if err == nil && r.Change.Op == st.OpInit {
		e.warnUnmerged(r.File, path)
	}
	return res, err
}

// warnUnmerged warns, after st init, when git would not merge the stream
// with the driver: its path has no merge=queen attribute (init adds one
// only for the streams .beads/queen.toml names), so two branches that both
// change the plan conflict, as any text file does.
func (e *Env) warnUnmerged(file, path string) {
	repo, err := gitrepo.Discover(filepath.Dir(path))
	if err != nil || repo.TopLevel == "" {
		return
	}
	rel, err := filepath.Rel(repo.TopLevel, path)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	if driver, _, err := gitrepo.MergeAndFilterOf(repo.TopLevel, filepath.ToSlash(rel)); err == nil && driver != "queen" {
		fmt.Fprintf(e.Warn, "git-queen: warning: git merges %s without the queen driver (merge attribute: %s), so branches that both change "+
			"the plan will conflict: name it in .beads/queen.toml ([[format]] with format = \"st\") and run git queen init, "+
			"or add \"%s merge=queen\" to .gitattributes\n", file, driver, filepath.ToSlash(rel))
	}
}

// afterStreamRead runs between reading a stream and appending to it: a
// test's place to do what git does to a worktree file meanwhile (a merge
// or checkout replaces it with a new file).
var afterStreamRead = func(path string) {}

// streamLockPath is the stream's lock. In a repository it lives in git's
// common directory (queen-st/, named by the stream's absolute path), so
// that no lock file shows up in the worktree for `git add -A` to commit;
// outside one it is FILE.lock beside the stream.
func streamLockPath(path string) string {
	repo, err := gitrepo.Discover(filepath.Dir(path))
	if err != nil || repo.CommonDir == "" {
		return path + ".lock"
	}
	sum := sha256.Sum256([]byte(links.Entry(path)))
	return filepath.Join(repo.CommonDir, "queen-st", hex.EncodeToString(sum[:8])+".lock")
}
