package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/front/mcpserver"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A frame of exactly MaxFrame bytes is read; one byte more is refused.
func TestMCPServerFrameBound(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := startMCPWire(t, ctx, repo, "git-queen-mcp", "--droid", "ann")

	padded := func(id string, size int) string {
		head := `{"jsonrpc":"2.0","id":"` + id + `","method":"ping"`
		return head + strings.Repeat(" ", size-len(head)-1) + "}"
	}
	at := padded("raw-at", mcpserver.MaxFrame)
	if len(at) != mcpserver.MaxFrame {
		t.Fatalf("the frame is %d bytes", len(at))
	}
	w.raw([]byte(at + "\n"))
	if m := w.reply(t); string(m.ID) != `"raw-at"` || m.Error != nil {
		t.Fatalf("a frame of MaxFrame bytes: %.300s", m)
	}
	w.serves(t, ctx)
	w.raw([]byte(padded("raw-over", mcpserver.MaxFrame+1) + "\n"))
	if m := w.reply(t); string(m.ID) != "null" || m.Error == nil || m.Error.Code != -32600 ||
		!strings.Contains(m.Error.Message, fmt.Sprint(mcpserver.MaxFrame)) {
		t.Fatalf("a frame of MaxFrame+1 bytes: %.300s", m)
	}
	w.serves(t, ctx)
}

// A 50 MB frame is refused as soon as its first MaxFrame+1 bytes are in:
// the refusal arrives before the rest is even written, the rest is
// dropped (not read as a frame of its own), the server's peak memory grows
// by far less than the frame, and the next tool call is served.
func TestMCPServerRefusesHugeFrameWhileItArrives(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := startMCPWire(t, ctx, repo, "git-queen-mcp", "--droid", "ann")
	w.serves(t, ctx)
	before := peakRSS(t, w.cmd.Process.Pid)

	const total = 50 << 20
	head := `{"jsonrpc":"2.0","id":"raw-huge","method":"tools/call","params":{"name":"send","arguments":{"to":"bob","subject":"s","body":"`
	w.raw([]byte(head + strings.Repeat("x", mcpserver.MaxFrame+1-len(head))))
	if m := w.reply(t); string(m.ID) != "null" || m.Error == nil || m.Error.Code != -32600 {
		t.Fatalf("the refusal of the huge frame: %.300s", m)
	}
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for written := mcpserver.MaxFrame + 1; written < total; written += len(chunk) {
		if _, err := w.raw(chunk); err != nil {
			t.Fatalf("the server stopped reading the frame: %v\n%s", err, w.stderr.String())
		}
	}
	w.raw([]byte(`"}}}` + "\n"))
	w.serves(t, ctx)

	grown := peakRSS(t, w.cmd.Process.Pid) - before
	t.Logf("peak RSS %d bytes before the frame, grew by %d", before, grown)
	if grown > total/2 && !raceEnabled {
		t.Errorf("the server's peak RSS grew by %d bytes for a %d-byte frame", grown, total)
	}
	res, err := w.client.CallTool(ctx, &mcp.CallToolParams{Name: "inbox", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("inbox after the huge frame: %v %s", err, mustJSON(res))
	}
	if strings.Contains(mustJSON(res.StructuredContent), "xxxx") {
		t.Errorf("the huge frame's send was run: %.300s", mustJSON(res.StructuredContent))
	}
}

// peakRSS is the process's peak resident set size, from Linux's /proc.
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/PID/status")
	return 0
}

// A frame cut off by the end of the input is answered, and the server
// then ends cleanly (exit 0): a truncated message, and a too long one.
func TestMCPServerUnterminatedFrameAtEOF(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	for _, c := range []struct {
		name, input string
		code        int
	}{
		{"truncated", `{"jsonrpc":"2.0","id":"raw-eof","method":`, -32700},
		{"too long", `{"jsonrpc":"2.0","id":"raw-eof","method":"ping","params":"` + strings.Repeat("y", mcpserver.MaxFrame), -32600},
	} {
		cmd := exec.Command("git-queen-mcp", "--droid", "ann")
		cmd.Dir = repo
		cmd.Stdin = strings.NewReader(c.input)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: %v\n%s", c.name, err, stderr.String())
		}
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,`, c.code)
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
			t.Errorf("%s: output %q, want one line starting %s", c.name, out, want)
		}
	}
}
