// Package mcpserver serves git-queen's commands as Model Context Protocol
// tools, so that an agent runtime offers them to its agents (git queen mcp,
// the git-queen-mcp program). Each tool calls the use case of internal/app
// that the command of its name calls, with the same request, and returns
// the result --json prints; exit codes and error kinds come from the one
// mapping of internal/front/commands.
package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/front/commands"
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
	t := &lineTransport{in: os.Stdin, out: os.Stdout, ended: make(chan struct{}), calls: &cancelledCalls{}}
	s := newServer(&runner{env: env, droid: env.Identity(*droid), beadsDir: *beadsDir, progressInterval: *progress, inputEnded: t.ended, calls: t.calls})
	// On a signal the SDK's Run closes the session and waits for the calls
	// in flight, whose contexts (and the drain's, when the input ended) it
	// never ends: a call waiting for the repository's lock kept the server
	// past a client's SIGTERM, to its SIGKILL. A signal ends the server at
	// once, and its calls in flight with it, as it ends a command.
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx, t) }()
	var err error
	select {
	case err = <-ran:
	case <-ctx.Done():
	}
	if err != nil && ctx.Err() == nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintf(os.Stderr, "git-queen-mcp: %v\n", err)
		return commands.ExitFailure
	}
	return commands.ExitOK
}

// runner runs the tools' use cases, in-process, as the server's droid.
type runner struct {
	env      *commands.Env
	droid    string
	beadsDir string
	// progressInterval is how often a running call reports progress
	// (DefaultProgressInterval when zero).
	progressInterval time.Duration
	// inputEnded is closed when the input ends: the calls that wait stop
	// then, and are answered, for the client that closed it to shut the
	// server down gives it seconds to exit (MCP's stdio shutdown).
	inputEnded <-chan struct{}
	// calls is the transport's table of calls in flight (nil on another
	// transport): a wait says there how to undo its answer if it is dropped.
	calls *cancelledCalls
}

// appEnv is the environment of one call: the server's directory, clock
// and droid, and ctx, which ends a call that waits (only waits read it;
// addTool ends it also when the input ends). What the command line
// says on stderr goes to warn, for the result to carry. Paths and patterns
// are from the top of the repository, as the tools' schemas say, also
// when the server runs in a subdirectory (a project inside a monorepo).
func (r *runner) appEnv(ctx context.Context, warn *warnings) *app.Env {
	return &app.Env{Dir: r.env.Dir, PathsFromTop: true, Getenv: r.env.Getenv, Now: r.env.Now, Warn: warn, Ctx: ctx,
		Droid: r.droid, BeadsDir: r.beadsDir}
}

// checkDroid refuses a --droid name no write would accept, as the command
// line refuses it: every call fails with a usage error that says why, and
// the server goes on. A name from QUEEN_DROID or git config that is not
// valid is no identity at all (app.Env.Identity), and a call that needs
// one says why.
func (r *runner) checkDroid() error {
	if r.droid == "" {
		return nil // no droid: a write says it needs one
	}
	return app.CheckDroidFlag(r.droid)
}

// outcome turns a use case's outcome into a tool result: the result as
// structured content, or a tool error carrying the exit code's meaning
// (and the result, when it says what the failure ran into: check's
// holders, a reservation's conflicts, validate's problems) and the
// warnings the command line would print beside the error. command names
// the command a usage error's help is under.
func outcome(command string, res any, err error, warned ...string) *mcp.CallToolResult {
	data := boundProblems(encode(res))
	if err == nil {
		if data == nil {
			data = json.RawMessage("{}")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}, StructuredContent: data}
	}
	e := commands.ErrorOf(err)
	if e.Kind == commands.ErrorKind(commands.ExitUsage) && e.Command == "" {
		e.Command = command
	}
	if e.Code != commands.ExitConflict && !errors.As(err, new(*app.FailedError)) {
		data = nil
	}
	return toolError(e, data, warned...)
}

// encode is res as --json prints it (without the final newline), nil for
// no result.
func encode(res any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return json.RawMessage(fmt.Sprintf(`{"unencodable": %q}`, err.Error()))
	}
	if out := bytes.TrimSpace(b.Bytes()); !bytes.Equal(out, []byte("null")) {
		return out
	}
	return nil
}

// toolError is the result of a failed call: structured content
// {"error": e, "result": result, "warnings": warned} (result only when the
// command printed one, warnings when it warned: a wait from a droid never
// seen), and text content that says the same to a client that shows only
// text: the message, then the structured content as JSON.
func toolError(e commands.ErrorJSON, result json.RawMessage, warned ...string) *mcp.CallToolResult {
	structured := map[string]any{"error": e}
	if result != nil {
		structured["result"] = result
	}
	if len(warned) > 0 {
		structured["warnings"] = warned
	}
	text := e.Message
	if data, err := json.Marshal(structured); err == nil {
		text += "\n\n" + string(data)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
}

// toolSpec is a tool: its name and description, the use case it calls
// (and that use case's command), the defaults it sets in a request, and
// what it reports while it runs.
type toolSpec[In, Out any] struct {
	name, description, command string
	run                        func(*app.Env, In) (Out, error)
	// prepare, when set, gives a request the tool's defaults (a listing's
	// limit, wait's timeout).
	prepare func(*In)
	// progress, when set, is what a running call reports; every call
	// reports its elapsed time at the interval otherwise.
	progress func(In) progressPlan
	// finish, when set, trims a result before it is returned (a listing
	// bounded in bytes).
	finish func(Out)
	// undo, when set, undoes what a call that succeeded did, when its
	// answer is dropped (the client cancelled the call): wait unmarks.
	undo func(*app.Env, In, Out)
}

// useCase is the tool name that calls u.
func useCase[In, Out any](name, description string, u app.UseCase[In, Out]) toolSpec[In, Out] {
	return toolSpec[In, Out]{name: name, description: description, command: u.Name, run: u.Run}
}

// addTool registers the tool spec describes, with the input schema of In,
// its annotations (toolHints) and its progress reports. It validates the
// arguments itself against the schema it publishes (decode), so that
// every failure has one shape. A panic in it is a failed call, not the
// end of the server: the SDK recovers none, and one agent's input must
// not take the tools away from the others.
func addTool[In, Out any](s *mcp.Server, r *runner, spec toolSpec[In, Out]) {
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
			return toolError(commands.ErrorJSON{Code: commands.ExitUsage, Kind: commands.ErrorKind(commands.ExitUsage),
				Message: err.Error(), Command: spec.name}, nil), nil
		}
		if spec.prepare != nil {
			spec.prepare(&in)
		}
		plan := progressPlan{what: spec.name + " is running"}
		if spec.progress != nil {
			plan = spec.progress(in)
		}
		// Reports start now, and stop once the call returns.
		defer reportProgress(ctx, req, cmp.Or(r.progressInterval, DefaultProgressInterval), plan)()
		if err := r.checkDroid(); err != nil {
			return outcome(spec.command, nil, err), nil
		}
		waitCtx, stop := context.WithCancel(ctx)
		defer stop()
		go func() {
			select {
			case <-r.inputEnded:
				stop()
			case <-waitCtx.Done():
			}
		}()
		warned := &warnings{trace: os.Stderr}
		out, err := spec.run(r.appEnv(waitCtx, warned), in)
		if err == nil && spec.finish != nil {
			spec.finish(out)
		}
		if err == nil && spec.undo != nil {
			r.calls.onDrop(req.Params.Meta[callKey], func() { spec.undo(r.appEnv(context.Background(), warned), in, out) })
		}
		res = outcome(spec.command, out, err, warned.list()...)
		if data, ok := res.StructuredContent.(json.RawMessage); ok && !res.IsError {
			data = withWarnings(data, warned.list())
			res.StructuredContent, res.Content = data, []mcp.Content{&mcp.TextContent{Text: string(data)}}
		}
		return res, nil
	})
}

// internalError is the result of a tool that panicked: a failure error
// saying so, with the panic's stack on the server's stderr for whoever
// reports the bug.
func internalError(tool string, p any) *mcp.CallToolResult {
	fmt.Fprintf(os.Stderr, "git-queen-mcp: the tool %s panicked: %v\n%s", tool, p, debug.Stack())
	return toolError(commands.ErrorJSON{Code: commands.ExitFailure, Kind: commands.ErrorKind(commands.ExitFailure),
		Message: fmt.Sprintf("internal error in the tool %s (a bug in git-queen; the server's stderr has the details): %v", tool, p)}, nil)
}
