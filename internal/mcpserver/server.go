// Package mcpserver serves git-queen's commands as Model Context Protocol
// tools, so that an agent runtime offers them to its agents (git queen mcp,
// the git-queen-mcp program). Each tool runs the git-queen command of its
// name in-process with --json and returns what it printed: the CLI stays
// the one place where behaviour, validation and exit codes are decided.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/commands"
)

// Main runs the server on standard input and output as the program
// git-queen-mcp and returns its exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("git-queen-mcp", flag.ContinueOnError)
	droid := fs.String("droid", "", "act as droid `NAME` (default: $QUEEN_DROID, then git config queen.droid)")
	beadsDir := fs.String("beads-dir", "", "use the plain directory store `DIR` (default: $BEADS_DIR)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: git-queen-mcp [--droid NAME] [--beads-dir DIR]\n\n"+
			"The MCP server of git queen mcp (see git queen mcp --help), on standard input and output.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if err == flag.ErrHelp {
			return commands.ExitOK
		}
		return commands.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "git-queen-mcp: takes no arguments")
		return commands.ExitUsage
	}
	env := commands.OSEnv()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := New(env, env.Identity(*droid), *beadsDir).Run(ctx, &lineTransport{in: os.Stdin, out: os.Stdout})
	if err != nil && ctx.Err() == nil && err != io.EOF && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintf(os.Stderr, "git-queen-mcp: %v\n", err)
		return commands.ExitFailure
	}
	return commands.ExitOK
}

// runner runs git-queen commands for the tools, in-process, as the
// server's droid.
type runner struct {
	env      *commands.Env
	droid    string
	beadsDir string
}

// errorJSON is the error object of a failed tool call, as `--json` prints
// it on stderr.
type errorJSON struct {
	Code    int    `json:"code"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Command string `json:"command,omitempty"`
	// Conflicts, for a refused reservation, say who holds what.
	Conflicts json.RawMessage `json:"conflicts,omitempty"`
}

// run runs one command with --json and turns its outcome into a tool
// result: the JSON it printed as structured content, or a tool error
// carrying the exit code's meaning (and what the command printed, such as
// check's holders).
func (r *runner) run(ctx context.Context, args []string) *mcp.CallToolResult {
	var stdout, stderr bytes.Buffer
	env := r.env.WithIO(ctx, strings.NewReader(""), &stdout, &stderr)
	argv := []string{"git-queen", "--json"}
	if r.droid != "" {
		argv = append(argv, "--droid", r.droid)
	}
	if r.beadsDir != "" {
		argv = append(argv, "--beads-dir", r.beadsDir)
	}
	code := commands.Run(env, append(argv, args...))
	var result json.RawMessage
	if out := bytes.TrimSpace(stdout.Bytes()); len(out) > 0 && json.Valid(out) {
		result = out
	}
	if code == commands.ExitOK {
		if result == nil {
			result = json.RawMessage("{}")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(result)}}, StructuredContent: result}
	}
	e := errorJSON{Code: code, Kind: commands.ErrorKind(code)}
	var reported struct{ Error *errorJSON }
	switch {
	case json.Unmarshal(lastLine(stderr.Bytes()), &reported) == nil && reported.Error != nil:
		e = *reported.Error
	case strings.TrimSpace(stderr.String()) != "":
		e.Message = strings.TrimSpace(stderr.String())
	case code == commands.ExitConflict:
		e.Message = "held exclusively by another droid: the result says who holds what, until when"
	default:
		e.Message = fmt.Sprintf("the command failed with exit code %d", code)
	}
	structured := map[string]any{"error": e}
	if result != nil {
		structured["result"] = result
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: e.Message}}, StructuredContent: structured}
}

// lastLine is the last non-empty line of b: the JSON error follows any
// warnings on stderr.
func lastLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// addCommandTool registers a tool that runs the command args builds from
// its input. A panic in it is a failed call, not the end of the server:
// the SDK recovers none, and one agent's input must not take the tools
// away from the others.
func addCommandTool[In any](s *mcp.Server, r *runner, name, description string, args func(In) []string) {
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: description},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, _ any, _ error) {
			defer func() {
				if p := recover(); p != nil {
					res = internalError(name, p)
				}
			}()
			return r.run(ctx, args(in)), nil, nil
		})
}

// internalError is the result of a tool that panicked: a failure error
// saying so, with the panic's stack on the server's stderr for whoever
// reports the bug.
func internalError(tool string, p any) *mcp.CallToolResult {
	fmt.Fprintf(os.Stderr, "git-queen-mcp: the tool %s panicked: %v\n%s", tool, p, debug.Stack())
	e := errorJSON{Code: commands.ExitFailure, Kind: commands.ErrorKind(commands.ExitFailure),
		Message: fmt.Sprintf("internal error in the tool %s (a bug in git-queen; the server's stderr has the details): %v", tool, p)}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: e.Message}},
		StructuredContent: map[string]any{"error": e}}
}
