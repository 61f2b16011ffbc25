//go:build linux

package jsonl

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/git-queen/git-queen/internal/base/crc32c"
)

// fullDiskEnv names the log the helper process appends to under a file
// size limit (RLIMIT_FSIZE: writes past it fail with EFBIG, as on a full
// disk; Go ignores the SIGXFSZ that comes with them).
const fullDiskEnv = "JSONL_TEST_FULL_DISK_LOG"

// fullDiskLines are the lines the helper appends: 100 before the limit,
// then a batch of several megabytes that crosses it.
func fullDiskLines() (lines [][]byte, known []Known) {
	for i := range 6000 {
		id := fmt.Sprintf("msg-%05d", i)
		lines = append(lines, fmt.Appendf(nil, `{"id":%q,"pad":%q}`, id, strings.Repeat("x", 500)))
		known = append(known, Known{ID: id})
	}
	return lines, known
}

// A batch that fills the disk part way (the appender writes it a piece at
// a time) fails with the write's error; the appender's Close then indexes
// the log as it is, torn tail included, and the next writer cuts the tail
// and leaves a log whose lines are a prefix of what was appended, and an
// index that matches it.
func TestAppendThatFillsTheDiskLeavesALogItsIndexMatches(t *testing.T) {
	limit := uint64(1500000)
	if path := os.Getenv(fullDiskEnv); path != "" {
		l := &Log{Path: path, Lock: &Lock{Path: path + ".lock"}, CacheDir: path + ".cache"}
		lines, known := fullDiskLines()
		err := l.Lock.Do(func(tx *Tx) error {
			a, err := tx.Appender(l)
			if err != nil {
				return err
			}
			if err := a.Append(lines[:100], known[:100]); err != nil {
				return err
			}
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
				return err
			}
			err = a.Append(lines[100:], known[100:])
			if closeErr := a.Close(); closeErr != nil {
				return fmt.Errorf("close: %w", closeErr)
			}
			return err
		})
		fmt.Printf("append: %v\n", err)
		return
	}
	path := t.TempDir() + "/log.jsonl"
	cmd := exec.Command(os.Args[0], "-test.run=^TestAppendThatFillsTheDiskLeavesALogItsIndexMatches$")
	cmd.Env = append(os.Environ(), fullDiskEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "append: append to "+path+": write "+path+": file too large") {
		t.Fatalf("the append past the limit: %v\n%s", err, out)
	}
	l := &Log{Path: path, Lock: &Lock{Path: path + ".lock"}, CacheDir: path + ".cache", NoSync: true}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(data)) != limit || bytes.HasSuffix(data, []byte{'\n'}) {
		t.Fatalf("the log is %d bytes (the limit is %d), ending with a newline %v: the test's premise, a torn tail, fails",
			len(data), limit, bytes.HasSuffix(data, []byte{'\n'}))
	}
	ix, ok := openIndexNow(t, l)
	if !ok {
		t.Fatal("after the failed append, no index matches the log")
	}
	if size, _, crc := ix.Covered(); size != int64(len(data)) || crc != crc32c.Checksum(data) {
		t.Fatalf("the index covers %d bytes (crc %08x) of a log of %d (%08x)", size, crc, len(data), crc32c.Checksum(data))
	}
	ix.Close()

	appendRecords(t, l, map[string]any{"id": "after"})
	checkIndex(t, l, "after the next append")
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := fullDiskLines()
	got := bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
	if len(got) < 101 || string(got[len(got)-1]) != `{"id":"after"}` {
		t.Fatalf("after the next append the log holds %d lines, ending %.40q", len(got), got[len(got)-1])
	}
	for i, line := range got[:len(got)-1] {
		if !bytes.Equal(line, lines[i]) {
			t.Fatalf("line %d is %.40q, want %.40q", i, line, lines[i])
		}
	}
}
