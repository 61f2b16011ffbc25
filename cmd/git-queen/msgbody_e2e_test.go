package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
)

// TestMsgSendReadsNoMoreBodyThanAMessageHolds: a body on standard input
// (or in a file) larger than any message may be is refused once it has
// passed the limit, not read to its end first: an endless stream (a pipe
// from a runaway program, --body-file /dev/zero) would otherwise grow the
// process until the machine kills it. The stream here is 64 MB; the
// command must have stopped reading it a few pipe buffers past the limit.
func TestMsgSendReadsNoMoreBodyThanAMessageHolds(t *testing.T) {
	repo := newRepo(t)
	for _, flag := range []string{"--body-file", "--body"} {
		t.Run(flag, func(t *testing.T) {
			cmd := queenCmd(repo, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "huge", flag, "-")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			chunk := bytes.Repeat([]byte("a"), 64<<10)
			written := 0
			for written < 64<<20 {
				n, err := stdin.Write(chunk)
				written += n
				if err != nil {
					break // the command closed its end: it stopped reading
				}
			}
			stdin.Close()
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "a message may have") {
				t.Fatalf("a body over the limit: %v\n%s", err, stderr.String())
			}
			if limit := records.MaxNewLineBytes + 4<<20; written > limit {
				t.Fatalf("the command read %d bytes of a body before refusing it; at most %d (the limit and a few buffers)", written, limit)
			}
		})
	}
	// A body within the limit is read whole and sent.
	cmd := queenCmd(repo, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "fits", "--body", "-")
	cmd.Stdin = strings.NewReader(strings.Repeat("b", records.MaxNewLineBytes/2))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a body within the limit: %v\n%s", err, out)
	}
	if out := mustQueen(t, repo, "bob", "msg", "inbox", "--json"); !strings.Contains(out, `"subject": "fits"`) {
		t.Fatalf("the message within the limit is not in the inbox:\n%s", out)
	}
}
