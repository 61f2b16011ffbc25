package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/testgit"
)

// mcpWire is a real MCP server process that the SDK's client talks to
// and that a test also writes raw bytes to, between the client's
// messages. Replies meant for the raw frames reach the test on replies:
// those without a method whose id the client cannot have sent (null, a
// string, or anything but a plain integer below a million), and progress
// notifications for a raw frame's token (a string starting "raw-");
// everything else reaches the client.
type mcpWire struct {
	cmd     *exec.Cmd
	mu      sync.Mutex // one writer at a time on stdin: the client or raw
	stdin   io.WriteCloser
	replies chan wireReply
	client  *mcp.ClientSession
	stderr  testgit.LockedBuffer
	// out is every line the server wrote, whoever it was for.
	out testgit.LockedBuffer
}

type wireReply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProgressToken any `json:"progressToken"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

var clientID = regexp.MustCompile(`^[1-9][0-9]{0,5}$`)

// startMCPWire starts argv in dir and connects the SDK's client to it.
func startMCPWire(t *testing.T, ctx context.Context, dir string, argv ...string) *mcpWire {
	t.Helper()
	w := &mcpWire{cmd: exec.Command(argv[0], argv[1:]...), replies: make(chan wireReply, 4096)}
	w.cmd.Dir = dir
	w.cmd.Stderr = &w.stderr
	stdin, err := w.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	w.stdin = stdin
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toClient, fromServer := io.Pipe()
	go w.route(stdout, fromServer)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-wire", Version: "1"}, nil)
	w.client, err = client.Connect(ctx, &mcp.IOTransport{Reader: toClient, Writer: wireWriter{w}}, nil)
	if err != nil {
		t.Fatalf("connect to %v: %v\n%s", argv, err, w.stderr.String())
	}
	t.Cleanup(func() {
		w.client.Close()
		w.cmd.Wait()
	})
	return w
}

// route reads the server's lines and sends each to the test or the client.
func (w *mcpWire) route(stdout io.Reader, toClient *io.PipeWriter) {
	defer close(w.replies)
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			w.out.Write(line)
			var m wireReply
			if json.Unmarshal(line, &m) == nil && (m.Method == "" && !clientID.Match(m.ID) || m.rawProgress()) {
				w.replies <- m
			} else if _, err := toClient.Write(line); err != nil {
				return
			}
		}
		if err != nil {
			toClient.CloseWithError(err)
			return
		}
	}
}

// wireWriter is the client's side of stdin.
type wireWriter struct{ w *mcpWire }

func (ww wireWriter) Write(p []byte) (int, error) { return ww.w.raw(p) }
func (ww wireWriter) Close() error                { return ww.w.stdin.Close() }

// raw writes p to the server's stdin as it is.
func (w *mcpWire) raw(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stdin.Write(p)
}

// reply waits for the next reply to a raw frame; a hang hits the
// generous bound.
func (w *mcpWire) reply(t *testing.T) wireReply {
	t.Helper()
	select {
	case m, ok := <-w.replies:
		if !ok {
			t.Fatalf("the server closed its output\n%s", w.stderr.String())
		}
		return m
	case <-time.After(60 * time.Second):
		t.Fatalf("no reply in 60s\n%s", w.stderr.String())
	}
	return wireReply{}
}

// serves proves the server still answers the client, and that no reply
// to a raw frame is left over.
func (w *mcpWire) serves(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := w.client.Ping(ctx, nil); err != nil {
		t.Fatalf("the server no longer answers a ping: %v\n%s", err, w.stderr.String())
	}
	select {
	case m := <-w.replies:
		t.Fatalf("an extra reply: %+v", m)
	default:
	}
}

// rawProgress says whether m is a progress notification for a raw frame.
func (m wireReply) rawProgress() bool {
	token, _ := m.Params.ProgressToken.(string)
	return m.Method == "notifications/progress" && strings.HasPrefix(token, "raw-")
}

func (m wireReply) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// nested is a ping whose params nest depth arrays deep.
func nested(depth int) string {
	return `{"jsonrpc":"2.0","id":"raw-deep","method":"ping","params":{"a":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}`
}

// Every malformed or hostile frame gets its JSON-RPC reply (or, where the
// specification wants none, none) and the next request is answered: the
// server, started as agents start it (git queen mcp), outlives them all
// and still runs tools afterwards.
func TestMCPServerSurvivesMalformedInput(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := startMCPWire(t, ctx, repo, "git", "queen", "--droid", "ann", "mcp")

	hugeID := `"raw-` + strings.Repeat("9", 1<<20) + `"`
	const none = 1 // the frame gets no reply
	cases := []struct {
		name, frame string
		code        int    // the error code, 0 for a result, none for no reply
		id          string // the reply's id
	}{
		{"a batch of numbers", `[1,2,3]`, -32600, "null"},
		{"a batch of requests", `[{"jsonrpc":"2.0","id":"raw-b","method":"ping"}]`, -32600, "null"},
		{"an empty batch", `[]`, -32600, "null"},
		{"a NUL between members", "{\"jsonrpc\":\"2.0\",\"id\":\"raw-nul\",\x00\"method\":\"ping\"}", -32700, "null"},
		{"a NUL in a string", "{\"jsonrpc\":\"2.0\",\"id\":\"raw\x00\",\"method\":\"ping\"}", -32700, "null"},
		{"an escape sequence in a string", "{\"jsonrpc\":\"2.0\",\"id\":\"raw\x1b[2J\",\"method\":\"ping\"}", -32700, "null"},
		{"no jsonrpc member", `{"id":"raw-v","method":"ping"}`, -32600, `"raw-v"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"raw-v1","method":"ping"}`, -32600, `"raw-v1"`},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"raw-\xff\xfe\",\"method\":\"ping\"}", -32700, "null"},
		{"a number", `42`, -32600, "null"},
		{"a string", `"ping"`, -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"truncated JSON", `{"jsonrpc":"2.0","id":"raw-t","method":`, -32700, "null"},
		{"two messages on a line", `{"jsonrpc":"2.0","id":"raw-2a","method":"ping"} {"jsonrpc":"2.0","id":"raw-2b","method":"ping"}`, -32700, "null"},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "1.5"},
		{"an id of 1e30", `{"jsonrpc":"2.0","id":1e30,"method":"ping"}`, -32600, "1e30"},
		{"an id rounded by float64", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "9007199254740993"},
		{"a number past float64", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, -32600, "null"},
		{"an id given twice", `{"jsonrpc":"2.0","id":"raw-d","id":1e30,"method":"ping"}`, -32600, "null"},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"a method that is a number", `{"jsonrpc":"2.0","id":"raw-m","method":5}`, -32600, `"raw-m"`},
		{"nesting past the SDK's limit", nested(2000), -32600, `"raw-deep"`},
		{"nesting past JSON's limit", nested(20000), -32700, "null"},
		{"a response without an id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
		{"an unknown method", `{"jsonrpc":"2.0","id":"raw-u","method":"no/such"}`, -32601, `"raw-u"`},
		{"tools/call with string params", `{"jsonrpc":"2.0","id":"raw-p","method":"tools/call","params":"check"}`, -32602, `"raw-p"`},
		{"a huge string id", `{"jsonrpc":"2.0","id":` + hugeID + `,"method":"ping"}`, 0, hugeID},
		{"a large number id", `{"jsonrpc":"2.0","id":1000001,"method":"ping"}`, 0, "1000001"},
		{"a negative id", `{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`, 0, "-9007199254740992"},
		{"a CRLF line", "{\"jsonrpc\":\"2.0\",\"id\":\"raw-crlf\",\"method\":\"ping\"}\r", 0, `"raw-crlf"`},
		{"an unknown notification", `{"jsonrpc":"2.0","method":"notifications/no-such"}`, none, ""},
		{"a response to nothing", `{"jsonrpc":"2.0","id":"raw-r","result":{}}`, none, ""},
		{"a blank line", "", none, ""},
		{"spaces", "  \t ", none, ""},
	}
	for _, c := range cases {
		if _, err := w.raw([]byte(c.frame + "\n")); err != nil {
			t.Fatalf("%s: write: %v", c.name, err)
		}
		if c.code != none {
			m := w.reply(t)
			if string(m.ID) != c.id {
				t.Errorf("%s: reply id %.80s, want %.80s", c.name, m.ID, c.id)
			}
			switch {
			case c.code == 0 && (m.Error != nil || m.Result == nil):
				t.Errorf("%s: want a result, got %.300s", c.name, m)
			case c.code != 0 && (m.Error == nil || m.Error.Code != c.code || m.Error.Message == ""):
				t.Errorf("%s: want error %d, got %.300s", c.name, c.code, m)
			}
		}
		w.serves(t, ctx)
	}

	// Many bad frames in one write: each is answered, in order.
	var flood bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(&flood, `{"id":"raw-%d","method":"ping"}`+"\n[%d]\n\x00\n", i, i)
	}
	w.raw(flood.Bytes())
	for i := range 1000 {
		if m := w.reply(t); string(m.ID) != fmt.Sprintf(`"raw-%d"`, i) || m.Error.Code != -32600 {
			t.Fatalf("flood frame %d: %s", i, m)
		}
		for _, code := range []int{-32600, -32700} {
			if m := w.reply(t); string(m.ID) != "null" || m.Error == nil || m.Error.Code != code {
				t.Fatalf("flood frame %d: want %d, got %s", i, code, m)
			}
		}
	}
	w.serves(t, ctx)

	res, err := w.client.CallTool(ctx, &mcp.CallToolParams{Name: "reserve", Arguments: map[string]any{"patterns": []string{"src/**"}}})
	if err != nil || res.IsError {
		t.Fatalf("reserve after the bad input: %v %+v\n%s", err, res, w.stderr.String())
	}
	res, err = w.client.CallTool(ctx, &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"paths": []string{"src/a.go"}}})
	if err != nil || res.IsError || !strings.Contains(mustJSON(res.StructuredContent), `"droid":"ann"`) {
		t.Fatalf("check after the bad input: %v %s", err, mustJSON(res))
	}
	if strings.Contains(w.stderr.String(), "panic") {
		t.Errorf("the server's stderr: %s", w.stderr.String())
	}
}
