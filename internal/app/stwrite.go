package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
	// gets one (st.NewID); a comment with no author is the droid's.
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
	command := r.Command
	if command == "" {
		command = "st"
	}
	if r.File == "" || r.File == "-" {
		return nil, &UsageError{Command: command, Msg: "name the stream file to write (standard input cannot be written)"}
	}
	if r.Interval < 0 {
		return nil, &UsageError{Command: command, Msg: "--checkpoint-interval must be 1 or more (0: the default)"}
	}
	path := e.abs(r.File)
	if r.Change.Op == st.OpAddComment && r.Change.Comment.Author == "" {
		me, err := e.RequireIdentity()
		if err != nil {
			return nil, &UsageError{Command: command, Msg: "a comment needs an author: pass --author NAME, or give this worktree a droid identity (--droid NAME, QUEEN_DROID)"}
		}
		r.Change.Comment.Author = me
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return nil, &UsageError{Command: command, Msg: fmt.Sprintf("%s: the directory %s does not exist; create it first", r.File, filepath.Dir(path))}
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
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", r.File, err)
		}
		if errors.Is(err, fs.ErrNotExist) && r.Change.Op != st.OpInit {
			return &UsageError{Command: command, Msg: fmt.Sprintf("%s does not exist; start a stream there with 'git queen st init %s'", r.File, r.File)}
		}
		data, repaired, err := setAsideTornTail(path, data)
		if err != nil {
			return fmt.Errorf("%s: %w", r.File, err)
		}
		if repaired != "" {
			fmt.Fprintf(e.Warn, "git-queen: warning: %s: %s\n", r.File, repaired)
		}
		change := r.Change
		if change.Op == st.OpUpsert && change.Item.ID == "" {
			change.Item.ID = st.NewID(data)
		}
		w, err := st.Append(data, change, e.Now(), r.Interval)
		var refused *st.RefusedError
		if errors.As(err, &refused) {
			return &UsageError{Command: command, Msg: fmt.Sprintf("%s: %s; nothing was written", r.File, refused.Msg)}
		}
		var broken *st.BrokenStreamError
		if errors.As(err, &broken) {
			return fmt.Errorf("%s: line %d is not an st v3 record (%v); nothing was written: "+
				"'git queen validate %s' lists the problems, 'git queen resolve %s' repairs conflict markers",
				r.File, broken.Line, broken.Err, r.File, r.File)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", r.File, err)
		}
		if err := appendStream(path, data, w.Lines); err != nil {
			return fmt.Errorf("append to %s: %w", r.File, err)
		}
		res = &StWriteResult{File: r.File, Op: change.Op, Seq: w.Seq, Checkpoint: w.Checkpoint, Item: w.Item, Items: w.Items}
		if w.Item != nil {
			res.ID = w.Item.ID
		}
		return nil
	})
	return res, err
}

// appendStream appends lines to the stream in one write, in the line
// endings the file uses, after a newline when its last line lacks one,
// and syncs it: a write that returned is on disk.
func appendStream(path string, data []byte, lines [][]byte) error {
	eol := []byte("\n")
	if bytes.Contains(data, []byte("\r\n")) {
		eol = []byte("\r\n")
	}
	var buf bytes.Buffer
	if len(data) > 0 && data[len(data)-1] != '\n' {
		buf.Write(eol)
	}
	for _, l := range lines {
		buf.Write(l)
		buf.Write(eol)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// streamLockPath is the stream's lock. In a repository it lives in git's
// common directory (queen-st/, named by the stream's absolute path), so
// that no lock file shows up in the worktree for `git add -A` to commit;
// outside one it is FILE.lock beside the stream.
func streamLockPath(path string) string {
	repo, err := gitrepo.Discover(filepath.Dir(path))
	if err != nil || repo.CommonDir == "" {
		return path + ".lock"
	}
	key := path
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		key = filepath.Join(real, filepath.Base(path))
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(repo.CommonDir, "queen-st", hex.EncodeToString(sum[:8])+".lock")
}
