//go:build unix

package jsonl

import (
	"bufio"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A writer stopped inside the lock (kill -STOP) makes the others wait only
// as long as the timeout, with an error naming it; once it is dead, the
// next writer takes the lock at once.
func TestStoppedHolderBoundsTheWait(t *testing.T) {
	dir := t.TempDir()
	logPath, lockPath := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "lock")
	holder := helperCommand(t, "hold", logPath, lockPath, "h", "0")
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("holder said %q", line)
	}
	if err := holder.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	l := &Log{Path: logPath, Lock: &Lock{Path: lockPath, Timeout: 300 * time.Millisecond}}
	err = l.Append(map[string]any{"id": "x"})
	var te *LockTimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", holder.Process.Pid)) {
		t.Fatalf("append while a stopped process holds the lock: %v", err)
	}
	holder.Process.Kill()
	holder.Wait()
	if err := l.Append(map[string]any{"id": "x"}); err != nil {
		t.Fatalf("append after the holder died: %v", err)
	}
}
