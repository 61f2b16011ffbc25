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
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/commands"
)

// Main runs the server on standard input and output as the program
// git-queen-mcp and returns its exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("git-queen-mcp", flag.ContinueOnError)
	droid := fs.String("droid", "", "act as droid `NAME` (default: $QUEEN_DROID, then git config queen.droid)")
	beadsDir := fs.String("beads-dir", "", "use the plain directory store `DIR` (default: $BEADS_DIR)")
	progress := fs.Duration("progress-interval", DefaultProgressInterval,
		"while a call runs, send a progress notification this often (`DUR`), when the client asks for them; "+
			"below the client's request timeout, for a client that resets it on progress")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: git-queen-mcp [--droid NAME] [--beads-dir DIR] [--progress-interval DUR]\n\n"+
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
	if *progress < minProgressInterval {
		fmt.Fprintf(os.Stderr, "git-queen-mcp: --progress-interval %s: give a duration of at least %s, such as 10s\n", *progress, minProgressInterval)
		return commands.ExitUsage
	}
	env := commands.OSEnv()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	s := newServer(&runner{env: env, droid: env.Identity(*droid), beadsDir: *beadsDir, progressInterval: *progress})
	err := s.Run(ctx, &lineTransport{in: os.Stdin, out: os.Stdout})
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
	// progressInterval is how often a running call reports progress
	// (DefaultProgressInterval when zero).
	progressInterval time.Duration
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
	case code == commands.ExitConflict && describeHolds(result) != "":
		e.Message = describeHolds(result)
	case code == commands.ExitConflict:
		e.Message = "held exclusively by another droid"
	default:
		e.Message = fmt.Sprintf("the command failed with exit code %d", code)
	}
	return toolError(e, result)
}

// toolError is the result of a failed call: structured content
// {"error": e, "result": result} (result only when the command printed
// one), and text content that says the same to a client that shows only
// text: the message, then the structured content as JSON.
func toolError(e errorJSON, result json.RawMessage) *mcp.CallToolResult {
	structured := map[string]any{"error": e}
	if result != nil {
		structured["result"] = result
	}
	text := e.Message
	if data, err := json.Marshal(structured); err == nil {
		text += "\n\n" + string(data)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
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

// toolSpec is what a tool is besides its input: its name and description,
// the command line its input makes, and what it reports while it runs.
type toolSpec[In any] struct {
	name, description string
	args              func(In) []string
	// progress, when set, is what a running call reports; every call
	// reports its elapsed time at the interval otherwise.
	progress func(In) progressPlan
}

// addCommandTool registers a tool that runs the command args builds from
// its input. It validates the arguments itself against the schema it
// publishes (decode), so that every failure has one shape. A panic in it
// is a failed call, not the end of the server: the SDK recovers none, and
// one agent's input must not take the tools away from the others.
func addCommandTool[In any](s *mcp.Server, r *runner, name, description string, args func(In) []string) {
	addTool(s, r, toolSpec[In]{name: name, description: description, args: args})
}

// addTool registers the tool spec describes, with the input schema of In,
// its annotations (toolHints) and its progress reports, as
// addCommandTool says.
func addTool[In any](s *mcp.Server, r *runner, spec toolSpec[In]) {
	input := inputSchema[In](spec.name)
	tool := &mcp.Tool{Name: spec.name, Description: spec.description, InputSchema: input.schema}
	if h, ok := toolHints[spec.name]; ok {
		tool.Annotations = h.annotations()
	}
	s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		defer func() {
			if p := recover(); p != nil {
				res = internalError(spec.name, p)
			}
		}()
		in, err := decode[In](input, req.Params.Arguments)
		if err != nil {
			return toolError(errorJSON{Code: commands.ExitUsage, Kind: commands.ErrorKind(commands.ExitUsage),
				Message: err.Error(), Command: spec.name}, nil), nil
		}
		plan := progressPlan{what: spec.name + " is running"}
		if spec.progress != nil {
			plan = spec.progress(in)
		}
		interval := r.progressInterval
		if interval == 0 {
			interval = DefaultProgressInterval
		}
		stop := reportProgress(ctx, req, interval, plan)
		defer stop()
		return r.run(ctx, spec.args(in)), nil
	})
}

// internalError is the result of a tool that panicked: a failure error
// saying so, with the panic's stack on the server's stderr for whoever
// reports the bug.
func internalError(tool string, p any) *mcp.CallToolResult {
	fmt.Fprintf(os.Stderr, "git-queen-mcp: the tool %s panicked: %v\n%s", tool, p, debug.Stack())
	return toolError(errorJSON{Code: commands.ExitFailure, Kind: commands.ErrorKind(commands.ExitFailure),
		Message: fmt.Sprintf("internal error in the tool %s (a bug in git-queen; the server's stderr has the details): %v", tool, p)}, nil)
}
