package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/testgit"
)

// connect serves s in memory and connects the SDK's client to it.
// connectInNewRepo is a client of a server started as droid in a new
// repository (git's configuration isolated), and the context its calls
// take: a minute, then cancelled.
func connectInNewRepo(t *testing.T, droid string) (context.Context, *mcp.ClientSession) {
	t.Helper()
	ctx, env := newRepo(t)
	return ctx, connect(t, ctx, New(env, droid, ""), nil)
}

// newRepo is a new repository, as the environment of servers working in
// it, and a context that ends the test's calls after a minute.
func newRepo(t *testing.T) (context.Context, *commands.Env) {
	t.Helper()
	testgit.Isolate(t)
	env := commands.OSEnv()
	env.Dir = testgit.Init(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx, env
}

// annAndBob connects a server acting as ann and one acting as bob to a
// new repository.
func annAndBob(t *testing.T) (context.Context, *mcp.ClientSession, *mcp.ClientSession) {
	t.Helper()
	ctx, env := newRepo(t)
	return ctx, connect(t, ctx, New(env, "ann", ""), nil), connect(t, ctx, New(env, "bob", ""), nil)
}

func connect(t *testing.T, ctx context.Context, s *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, serverSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, clientSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Every tool the server lists has an input schema of plain types (one type
// name per schema, never "null", which clients that fill arguments from
// the schema cannot use), and annotations with every hint given.
func TestPublishedToolsArePlain(t *testing.T) {
	env := commands.OSEnv()
	env.Dir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := connect(t, ctx, New(env, "ann", ""), nil).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != len(toolHints) {
		t.Errorf("%d tools listed, %d with hints: each tool needs its hints in toolHints", len(tools.Tools), len(toolHints))
	}
	for _, tool := range tools.Tools {
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s any
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		for _, problem := range typeProblems(s, "") {
			t.Errorf("tool %s: %s in %s", tool.Name, problem, schema)
		}
		if strings.Contains(string(schema), `"null"`) {
			t.Errorf("tool %s: null in its schema %s", tool.Name, schema)
		}
		a := tool.Annotations
		if a == nil || a.Title == "" || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("tool %s: annotations %+v: give a title and every hint", tool.Name, a)
			continue
		}
		if a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("tool %s: read-only and destructive", tool.Name)
		}
		if *a.OpenWorldHint != reachesTheRemote[tool.Name] {
			t.Errorf("tool %s: openWorldHint %v; only %v (with a remote) reach the network", tool.Name, *a.OpenWorldHint, slices.Sorted(maps.Keys(reachesTheRemote)))
		}
	}
}

// typeProblems lists every "type" member under v that is not one plain
// type name.
func typeProblems(v any, path string) []string {
	var problems []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "type" {
				if name, ok := x.(string); !ok || name == "null" || name == "" {
					problems = append(problems, path+"/type is "+mustMarshal(x))
				}
			}
			// "properties" maps names to schemas: a property named "type"
			// is not a type.
			if k == "properties" {
				if props, ok := x.(map[string]any); ok {
					for name, p := range props {
						problems = append(problems, typeProblems(p, path+"/properties/"+name)...)
					}
					continue
				}
			}
			problems = append(problems, typeProblems(x, path+"/"+k)...)
		}
	case []any:
		for _, x := range v {
			problems = append(problems, typeProblems(x, path+"[]")...)
		}
	}
	return problems
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The default wait ends before the 60 s after which the MCP SDKs' clients
// give up on a request, so the agent gets wait's answer, not a timeout.
func TestDefaultWaitIsBelowTheClientsTimeout(t *testing.T) {
	d, err := time.ParseDuration(waitTimeout(app.WaitRequest{}))
	if err != nil || d <= 0 || d >= 60*time.Second {
		t.Fatalf("the default wait is %q (%v); keep it below 60s", waitTimeout(app.WaitRequest{}), err)
	}
	if plan := waitProgress(app.WaitRequest{}); !plan.atStart || plan.total != d.Seconds() {
		t.Errorf("wait's progress plan %+v", plan)
	}
	// A timeout in days, which wait takes, is the total the progress
	// counts to, as reserve's wait_timeout is (it was left unknown).
	if plan := waitProgress(app.WaitRequest{Timeout: "1d"}); plan.total != (24 * time.Hour).Seconds() {
		t.Errorf("wait's progress plan for a timeout of 1d: %+v", plan)
	}
}

// wait, called with a progress token, reports progress from its start
// and at every interval while it waits, each notification later than the
// one before, and then returns the message that arrives.
func TestWaitReportsProgressWhileItWaits(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	env := commands.OSEnv()
	env.Dir = repo
	queen(t, env, "init", "--droid", "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	progress := make(chan *mcp.ProgressNotificationParams, 1000)
	cs := connect(t, ctx, newServer(&runner{env: env, droid: "ann", progressInterval: 10 * time.Millisecond}),
		&mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params
		}})

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"from": "bob", "timeout": "10m"}}
		params.SetProgressToken("wait-1")
		res, err := cs.CallTool(ctx, params)
		done <- answer{res, err}
	}()
	last := -1.0
	for i := range 3 {
		select {
		case p := <-progress:
			if p.ProgressToken != "wait-1" || p.Progress <= last || p.Total != 600 || !strings.Contains(p.Message, "waiting for a message") {
				t.Fatalf("progress notification %d: %+v (after %v)", i, p, last)
			}
			last = p.Progress
		case a := <-done:
			t.Fatalf("wait returned before it reported progress: %v %+v", a.err, a.res)
		case <-ctx.Done():
			t.Fatal("no progress notification in 60s")
		}
	}
	queen(t, env, "--droid", "bob", "msg", "send", "--new", "--to", "ann", "--subject", "done waiting?", "--body", "yes")
	select {
	case a := <-done:
		if a.err != nil || a.res.IsError || !strings.Contains(mustMarshal(a.res.StructuredContent), `"subject":"done waiting?"`) {
			t.Fatalf("wait: %v %s", a.err, mustMarshal(a.res))
		}
	case <-ctx.Done():
		t.Fatal("wait did not return the message in 60s")
	}
}

// The listing tools answer what they return: 50 rows unless the call
// gives a limit, and how many more there are, however large the store.
func TestListingToolsAreLimited(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	env := commands.OSEnv()
	env.Dir = repo
	queen(t, env, "init", "--droid", "ann")
	const total = 60
	var patterns []string
	for i := range total {
		queen(t, env, "--droid", "bob", "msg", "send", "--new", "--to", "ann", "--issue", "bd-1", "--subject", fmt.Sprintf("message %d", i))
		patterns = append(patterns, fmt.Sprintf("dir%d/**", i))
	}
	queen(t, env, append([]string{"--droid", "bob", "reserve"}, patterns...)...)
	for i := range total { // droids named, never seen: ann, bob and these
		queen(t, env, "--droid", "ann", "msg", "send", "--new", "--to", fmt.Sprintf("d%02d", i), "--subject", "hello")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := connect(t, ctx, New(env, "ann", ""), nil)
	for _, c := range []struct {
		tool, rows string
		args       map[string]any
		want, more int
	}{
		{"inbox", "messages", map[string]any{}, defaultListLimit, total - defaultListLimit},
		{"inbox", "messages", map[string]any{"limit": 7}, 7, total - 7},
		{"inbox", "messages", map[string]any{"limit": 100}, total, 0},
		{"thread", "thread", map[string]any{"id": "bd-1"}, defaultListLimit, total - defaultListLimit},
		{"thread", "thread", map[string]any{"id": "bd-1", "limit": 1000}, total, 0},
		{"reservations", "reservations", map[string]any{}, defaultListLimit, total - defaultListLimit},
		{"reservations", "reservations", map[string]any{"limit": 3}, 3, total - 3},
		{"droids", "droids", map[string]any{}, defaultListLimit, total + 2 - defaultListLimit},
		{"droids", "droids", map[string]any{"limit": 2}, 2, total},
		{"droids", "droids", map[string]any{"limit": 100}, total + 2, 0},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %s", c.tool, c.args, err, mustMarshal(res))
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal([]byte(mustMarshal(res.StructuredContent)), &out); err != nil {
			t.Fatal(err)
		}
		var rows []any
		var more int
		_ = json.Unmarshal(out[c.rows], &rows)
		_ = json.Unmarshal(out["more"], &more)
		if len(rows) != c.want || more != c.more {
			t.Errorf("%s %v: %d %s and more=%d; want %d and more=%d", c.tool, c.args, len(rows), c.rows, more, c.want, c.more)
		}
	}
	// A limit keeps the droids seen last: ann and bob wrote, the rest were
	// only named.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "droids", Arguments: map[string]any{"limit": 2}})
	if got := mustMarshal(res.StructuredContent); err != nil || !strings.Contains(got, `"droid":"ann"`) || !strings.Contains(got, `"droid":"bob"`) {
		t.Errorf("droids limit=2: %v %s", err, got)
	}
}

func TestListLimit(t *testing.T) {
	for given, want := range map[int]int{0: defaultListLimit, -1: defaultListLimit, 1: 1, 50: 50, maxListLimit: maxListLimit, maxListLimit + 1: maxListLimit, 1 << 40: maxListLimit} {
		if got := listLimit(given); got != want {
			t.Errorf("listLimit(%d) = %d, want %d", given, got, want)
		}
	}
}

// A server whose droid came from its environment or from git config, with
// a name no write accepts, names that place, not a --droid it was never
// given. QUEEN_DROID is read once, at start, and the error says so; git
// config is read again at every call, so a name set right counts at once.
func TestAnInvalidDroidNamesWhereItCameFrom(t *testing.T) {
	testgit.Isolate(t)
	env := commands.OSEnv()
	env.Dir = testgit.Init(t)
	testgit.Run(t, env.Dir, "config", "queen.droid", "c d")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	var first *mcp.ClientSession
	for _, c := range []struct{ queenDroid, prefix, restart string }{
		{"", `no droid identity: git config queen.droid is "c d": droid name "c d"`, ""},
		{"@x", `no droid identity: QUEEN_DROID is "@x": droid name "@x"`, "start the server again"},
	} {
		env.Getenv = func(k string) string { return map[string]string{"QUEEN_DROID": c.queenDroid}[k] }
		cs := connect(t, ctx, newServer(&runner{env: env, droid: env.Identity("")}), nil)
		first = cmp.Or(first, cs)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "inbox", Arguments: map[string]any{}})
		e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if err != nil || e["kind"] != "usage" || !strings.HasPrefix(msg, c.prefix) ||
			!strings.Contains(msg, c.restart) || strings.Contains(msg, "--droid") {
			t.Errorf("a server whose identity is invalid (QUEEN_DROID %q): %v %s", c.queenDroid, err, mustMarshal(res))
		}
	}
	testgit.Run(t, env.Dir, "config", "queen.droid", "ann")
	env.Getenv = func(string) string { return "" }
	if res, err := first.CallTool(ctx, &mcp.CallToolParams{Name: "inbox", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("inbox once git config names a valid droid: %v %s", err, mustMarshal(res))
	}
}

// A server started as a droid whose name no write accepts, or with a
// comma (which a send's to splits on), answers every call with the usage
// error --droid gives on the command line, and its instructions say so:
// they told the agent "You act as droid ann,bob." (or "-bob").
func TestAnInvalidDroidIsAUsageError(t *testing.T) {
	for _, name := range []string{strings.Repeat("x", 101), "ann,bob", "-bob"} {
		ctx, cs := connectInNewRepo(t, name)
		if got := cs.InitializeResult().Instructions; strings.Contains(got, "as droid "+name) || !strings.Contains(got, "--droid: ") {
			t.Errorf("the instructions of a server started as %q: %s", name, got)
		}
		for tool, args := range map[string]map[string]any{"inbox": {}, "send": {"to": "bob", "subject": "s"}} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
			if err != nil || !res.IsError || e["kind"] != "usage" || !strings.HasPrefix(e["message"].(string), "--droid: ") {
				t.Errorf("%s as droid %q: %v %s", tool, name, err, mustMarshal(res))
			}
		}
	}
}

// reachesTheRemote are the tools that, with a remote configured, fetch or
// push before they answer: sync, and the grants published by
// compare-and-swap (an exclusive reserve, an assignment, a claim by ready,
// a steal), and wait, which syncs while it waits.
var reachesTheRemote = map[string]bool{"sync": true, "reserve": true, "assign": true, "claim": true, "ready": true, "steal": true, "wait": true}

// A usage error names a tool's arguments as the tool takes them, never a
// command-line flag the client cannot pass (the command line's own words
// are checked in internal/front/commands).
func TestUsageErrorsNameTheToolsArguments(t *testing.T) {
	ctx, cs := connectInNewRepo(t, "ann")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"reserve", map[string]any{"patterns": []string{"a"}, "ttl": "3x"}, `ttl "3x": give a duration`},
		{"reserve", map[string]any{"patterns": []string{"a"}, "ttl": "8d"}, "ttl 8d is out of range"},
		{"reserve", map[string]any{"patterns": []string{"a"}, "wait_timeout": "1m"}, "wait_timeout says how long wait waits; add wait, or leave out wait_timeout"},
		{"reserve", map[string]any{"patterns": []string{"a"}, "wait": true, "wait_timeout": "-1s"}, `wait_timeout "-1s": give a positive duration`},
		{"reserve", map[string]any{"patterns": []string{"a"}, "wait": true, "force": true}, "wait queues for the paths and force takes them now"},
		{"renew", map[string]any{"all": true, "ttl": "soon"}, `ttl "soon": give a duration`},
		{"release", map[string]any{"all": true, "patterns": []string{"a"}}, "give patterns or all, not both"},
		{"wait", map[string]any{"timeout": "0s"}, `timeout "0s": give a positive duration`},
		{"inbox", map[string]any{"since": "yesterday"}, `since: "yesterday" is neither a duration`},
		{"send", map[string]any{"to": "bob", "subject": " ", "new": true}, "give a subject, or a body"},
		{"wait", map[string]any{"from": "a b"}, `from: droid name "a b" contains a space`},
		{"wait", map[string]any{"reply_to": "qm-1 2", "timeout": "10m"}, `reply_to: "qm-1 2" is no id (an id is 1 to 100 printable characters without spaces), so no message can match it`},
		// An empty argument that, left out, widens what the call acts on
		// is refused, as the command line refuses the empty flag: it read
		// as left out (release holder "" released one's own).
		{"send", map[string]any{"to": "bob", "subject": "s", "new": true, "reply_to": ""}, "reply_to is empty: give the id of the message this answers, or leave it out to start a new thread"},
		{"wait", map[string]any{"reply_to": " ", "timeout": "1s"}, "reply_to is empty: give the message id, or leave it out to wait for any message"},
		{"wait", map[string]any{"from": "", "timeout": "1s"}, "from is empty: give the droid name"},
		{"wait", map[string]any{"thread": "", "timeout": "1s"}, "thread is empty: give the thread id"},
		{"wait", map[string]any{"issue": "", "timeout": "1s"}, "issue is empty: give the issue id"},
		{"release", map[string]any{"all": true, "holder": "", "force": true}, "holder is empty: give the droid whose reservations to release, or leave it out to release your own"},
		{"renew", map[string]any{"all": true, "holder": " ", "force": true}, "holder is empty: give the droid whose reservations to renew"},
		// A listing's filter given empty listed every row, as the command
		// line's empty --droid did.
		{"reservations", map[string]any{"droid": ""}, "droid is empty: give the value to filter by, or leave it out to list them all"},
		{"reservations", map[string]any{"path": " "}, "path is empty: give the value to filter by"},
		{"assignments", map[string]any{"droid": ""}, "droid is empty: give the value to filter by"},
		{"assignments", map[string]any{"issue": ""}, "issue is empty: give the value to filter by"},
		{"inbox", map[string]any{"since": ""}, "since is empty: give the value to filter by"},
		{"wait", map[string]any{"timeout": ""}, "timeout is empty: give the duration to wait (30s, 10m), or leave it out to wait 50s"},
		{"reserve", map[string]any{"patterns": []string{"a"}, "wait": true, "wait_timeout": ""}, "wait_timeout is empty: give the duration to wait"},
		{"read", map[string]any{"id": ""}, "give the id of a message (inbox lists yours)"},
		{"reply", map[string]any{"id": " ", "body": "x"}, "give the id of a message"},
		{"thread", map[string]any{"id": ""}, "give the id of a message"},
		{"check", map[string]any{"paths": []string{}}, "name at least one path to check (paths)"},
		{"check", map[string]any{"paths": []string{"a", ""}}, "an empty path names no file: give a path in paths (. for the whole repository)"},
		// Only a tool's argument can carry a NUL: it failed as "lstat a b:
		// invalid argument", a failure of the machine's.
		{"check", map[string]any{"paths": []string{"a\x00b"}}, `path "a\x00b" holds a NUL byte, which no file's name has`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if !res.IsError || e["kind"] != "usage" || !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "--") {
			t.Errorf("%s %v: %s\nwant a usage error beginning %q, naming no flag", c.tool, c.args, mustMarshal(res), c.want)
		}
	}
}

// A refusal says what would let the call through in the tool's own words
// (force=true, the send tool), never a command-line flag or command the
// client cannot pass: a conflict, a change of another droid's records, an
// issue someone holds, an unknown recipient, a steal from a droid still
// seen, a wait that timed out, a release of a name that is both an issue
// and a path. The command line's words for the same
// refusals are checked by its own tests (cmd/git-queen, internal/front/commands).
func TestRefusalsNameTheToolsArguments(t *testing.T) {
	ctx, ann, bob := annAndBob(t)
	for _, c := range []struct {
		who  *mcp.ClientSession
		tool string
		args map[string]any
		kind string
		want []string
	}{
		{ann, "reserve", map[string]any{"patterns": []string{"a/**"}}, "", nil},
		{ann, "claim", map[string]any{"issue": "qb-1"}, "", nil},
		{bob, "reserve", map[string]any{"patterns": []string{"a/x"}}, "conflict",
			[]string{"a/x/** overlaps a/** held by ann", "ask the holder (send, or reserve again with notify=true), wait, or use force=true to reserve anyway"}},
		{bob, "release", map[string]any{}, "usage", []string{"name the patterns to release, or use all=true"}},
		{bob, "release", map[string]any{"patterns": []string{"a/**"}, "holder": "ann"}, "conflict",
			[]string{"to release another droid's reservations, add force=true (and reason)"}},
		{bob, "claim", map[string]any{"issue": "qb-1"}, "conflict", []string{"use force=true to reassign it"}},
		{bob, "send", map[string]any{"to": "annn", "subject": "hi"}, "usage", []string{"did you mean ann?", "pass new=true if the name is meant"}},
		{bob, "steal", map[string]any{"patterns": []string{"a/**"}}, "conflict", []string{"ask ann first (send to ann), or wait"}},
		{ann, "reserve", map[string]any{"patterns": []string{"qb-1"}}, "", nil},
		{ann, "release", map[string]any{"patterns": []string{"qb-1"}}, "usage",
			[]string{"qb-1 is both your assignment of issue qb-1 and your reservation of the path qb-1: say unassign qb-1 for the assignment, or release ./qb-1 for the reservation"}},
		{bob, "reserve", map[string]any{"patterns": []string{"a/y"}, "wait": true, "wait_timeout": "100ms"}, "conflict",
			[]string{"wait=true: not granted within 100ms", "a/y/** overlaps a/** held by ann"}},
		{bob, "claim", map[string]any{"issue": "-x"}, "usage",
			[]string{`(to end an assignment of it made before: unassign with issue "-x")`}},
	} {
		res, err := c.who.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		if c.kind == "" {
			if res.IsError {
				t.Fatalf("%s %v: %s", c.tool, c.args, mustMarshal(res))
			}
			continue
		}
		e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if !res.IsError || e["kind"] != c.kind || strings.Contains(msg, "--") || strings.Contains(msg, "git queen") {
			t.Errorf("%s %v: %s\nwant a %s error naming no flag and no command", c.tool, c.args, mustMarshal(res), c.kind)
		}
		for _, want := range c.want {
			if !strings.Contains(msg, want) {
				t.Errorf("%s %v: %q does not say %q", c.tool, c.args, msg, want)
			}
		}
	}
}

// A grant that cannot be published tells an MCP client to retry, and
// leaves out the command line's way on (--offline), which no tool has.
func TestUnpublishedGrantNamesOnlyWhatToolsCanDo(t *testing.T) {
	testgit.Isolate(t)
	env := commands.OSEnv()
	env.Dir = testgit.Init(t)
	testgit.Run(t, env.Dir, "remote", "add", "origin", filepath.Join(t.TempDir(), "gone.git"))
	testgit.Run(t, env.Dir, "config", "queen.remote", "origin")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	ann := connect(t, ctx, New(env, "ann", ""), nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"reserve", map[string]any{"patterns": []string{"a/**"}}, "nothing was reserved: cannot fetch the ledger from origin"},
		{"claim", map[string]any{"issue": "qb-1"}, "nothing was assigned: cannot fetch the ledger from origin"},
	} {
		res, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if !res.IsError || !strings.Contains(msg, c.want) || !strings.Contains(msg, "retry when origin can be reached") ||
			strings.Contains(msg, "offline") || strings.Contains(msg, "--") || strings.Contains(msg, "git queen") {
			t.Errorf("%s: %s\nwant %q and a retry, naming no flag, no command and no offline grant", c.tool, mustMarshal(res), c.want)
		}
	}
}

// inbox and thread return at most maxListingBytes of messages, however
// large each is, and count the rest in more: 50 messages near the 240 KB
// a message may have made every inbox call answer 12 MB, all of it in the
// agent's context. The newest come first in the inbox and last in a
// thread; one message comes whatever its size.
func TestMessageListingsAreBoundedInBytes(t *testing.T) {
	ctx, ann, bob := annAndBob(t)
	body := strings.Repeat("x", 200<<10)
	const sent = 12
	for i := range sent {
		args := map[string]any{"to": "ann", "subject": fmt.Sprintf("m%d", i), "body": body, "new": true, "issue": "bd-1"}
		res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("send: %v %s", err, mustMarshal(res))
		}
	}
	for _, c := range []struct {
		tool, list string
		args       map[string]any
		newest     int // index of the newest message in the list
	}{
		{"inbox", "messages", map[string]any{}, 0},
		{"thread", "thread", map[string]any{"id": "bd-1"}, -1},
	} {
		res, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.tool, err, mustMarshal(res))
		}
		text := res.Content[0].(*mcp.TextContent).Text
		var got map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatal(err)
		}
		var msgs []records.Message
		var more int
		_ = json.Unmarshal(got[c.list], &msgs)
		_ = json.Unmarshal(got["more"], &more)
		newest := msgs[(c.newest+len(msgs))%len(msgs)]
		if len(text) > maxListingBytes+64<<10 || len(msgs) == 0 || len(msgs)+more != sent || newest.Subject != fmt.Sprintf("m%d", sent-1) {
			t.Errorf("%s: %d bytes, %d messages (newest %q), more %d; want at most %d bytes, the newest first, and the rest counted",
				c.tool, len(text), len(msgs), newest.Subject, more, maxListingBytes)
		}
	}
}

// assign to a droid the repository has never seen says so in its result,
// as the command line warns on stderr, which a tool has not: "bbo" for
// "bob" gave the issue to nobody, and the agent was told nothing.
func TestAssignToAnUnknownDroidSaysSo(t *testing.T) {
	ctx, ann, bob := annAndBob(t)
	if res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "reserve", Arguments: map[string]any{"patterns": []string{"src/**"}}}); err != nil || res.IsError {
		t.Fatalf("reserve: %v %s", err, mustMarshal(res))
	}
	for _, c := range []struct{ droid, warning string }{
		{"bbo", `no droid "bbo" has appeared in this repository (did you mean bob?); the issue goes to bbo all the same`},
		{"bob", ""},
	} {
		res, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: "assign", Arguments: map[string]any{"issue": "qb-" + c.droid, "droid": c.droid}})
		if err != nil || res.IsError {
			t.Fatalf("assign: %v %s", err, mustMarshal(res))
		}
		warning, _ := res.StructuredContent.(map[string]any)["warning"].(string)
		if warning != c.warning {
			t.Errorf("assign to %s: warning %q, want %q", c.droid, warning, c.warning)
		}
		// Said once: the result's warnings do not repeat its warning.
		if warnings, ok := res.StructuredContent.(map[string]any)["warnings"]; ok {
			t.Errorf("assign to %s: warning %q repeated in warnings %q", c.droid, warning, warnings)
		}
	}
}

// A server started as a typo of a known droid's name says in its first
// result that the name is new here and whom it may mean, as the command
// line says on stderr; a send to that droid, known only from its calls,
// says so too, and goes.
func TestATypoOfADroidSaysSoInTheResult(t *testing.T) {
	ctx, env := newRepo(t)
	alice, alcie := connect(t, ctx, New(env, "alice", ""), nil), connect(t, ctx, New(env, "alcie", ""), nil)
	for _, c := range []struct {
		cs       *mcp.ClientSession
		tool     string
		args     map[string]any
		warnings []string
	}{
		{alice, "reserve", map[string]any{"patterns": []string{"src/**"}}, nil},
		{alcie, "inbox", map[string]any{}, []string{`droid "alcie" is new here; did you mean "alice"? (it is now known, from this command)`}},
		{alcie, "inbox", map[string]any{}, nil},
		{alice, "send", map[string]any{"to": "alcie", "subject": "hi"},
			[]string{`droid "alcie" is new here (known only from the commands it ran); did you mean "alice"? (sent all the same)`}},
	} {
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.tool, err, mustMarshal(res))
		}
		var got struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got); err != nil || !slices.Equal(got.Warnings, c.warnings) {
			t.Errorf("%s: warnings %q, want %q (%v)", c.tool, got.Warnings, c.warnings, err)
		}
	}
}

// send lists at most maxListingBytes of the copies it sent and counts the
// rest in more: a 200 KB message to 12 droids answered 2.4 MB (to 60,
// 12.3 MB), each copy the same body, all of it in the agent's context.
// Every copy was sent all the same.
func TestSendListsItsCopiesBoundedInBytes(t *testing.T) {
	ctx, env := newRepo(t)
	bob := connect(t, ctx, New(env, "bob", ""), nil)
	var to []string
	for i := range 12 {
		to = append(to, fmt.Sprintf("d%02d", i))
	}
	args := map[string]any{"to": strings.Join(to, ","), "subject": "big", "body": strings.Repeat("x", 200<<10), "new": true}
	res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("send: %v %s", err, mustMarshal(res))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var got struct {
		Sent []records.Message `json:"sent"`
		More int               `json:"more"`
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatal(err)
	}
	if len(text) > maxListingBytes+64<<10 || len(got.Sent) == 0 || len(got.Sent)+got.More != len(to) || got.Sent[0].To != "d00" {
		t.Errorf("send to %d droids: %d bytes, %d copies listed (first to %q), more %d; want at most %d bytes and the rest counted",
			len(to), len(text), len(got.Sent), got.Sent[0].To, got.More, maxListingBytes)
	}
	for _, d := range to {
		inbox, err := connect(t, ctx, New(env, d, ""), nil).CallTool(ctx, &mcp.CallToolParams{Name: "inbox", Arguments: map[string]any{}})
		if err != nil || inbox.IsError || !strings.Contains(inbox.Content[0].(*mcp.TextContent).Text, `"subject": "big"`) {
			t.Errorf("%s did not get the message: %v %.200s", d, err, mustMarshal(inbox))
		}
	}
}

// A wait from a droid the repository has never seen ("BOB" for "bob")
// says so in its answer, a timeout included, as msg wait warns on the
// command line: the agent waited out every timeout, told only that
// nothing came.
func TestWaitFromAnUnknownDroidSaysSo(t *testing.T) {
	ctx, ann, bob := annAndBob(t)
	if res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"to": "ann", "subject": "hi", "new": true}}); err != nil || res.IsError {
		t.Fatalf("send: %v %s", err, mustMarshal(res))
	}
	const warning = `no droid \"BOB\" has appeared in this repository (did you mean bob?); waiting for it all the same`
	res, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"from": "BOB", "timeout": "1s"}})
	if err != nil || !res.IsError || !strings.Contains(mustMarshal(res.StructuredContent), warning) {
		t.Errorf("wait from BOB: %v %s; want a timeout that warns %s", err, mustMarshal(res), warning)
	}
}
