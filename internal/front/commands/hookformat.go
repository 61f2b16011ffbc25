package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// preToolInput is the part of a pre-tool hook's input that Claude Code,
// Codex, Gemini CLI and Cursor share: the tool's name, its arguments, and
// the directory the agent works in (Cursor also lists its workspace roots).
type preToolInput struct {
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Cwd            string          `json:"cwd"`
	WorkspaceRoots []string        `json:"workspace_roots"`
}

// editingTool reads, from one tool's arguments, the paths it would change.
type editingTool func(args json.RawMessage) ([]string, error)

// readPreToolCall parses a pre-tool hook input and asks the runtime's
// editing tool of that name, if there is one, for its paths. Any other
// tool changes no file the guard can see and gets none. A UTF-8 byte
// order mark before the JSON is skipped: Cursor on Windows writes one
// before every payload, and a guard that took it for a broken call would
// refuse every edit.
func readPreToolCall(runtime string, input []byte, tools map[string]editingTool) (preToolInput, toolCall, error) {
	var in preToolInput
	input = bytes.TrimPrefix(input, []byte("\xef\xbb\xbf"))
	if err := json.Unmarshal(input, &in); err != nil {
		return in, toolCall{}, fmt.Errorf("the %s tool call on stdin is not JSON: %w", runtime, err)
	}
	call := toolCall{Tool: in.ToolName, Cwd: in.Cwd}
	edit, ok := tools[in.ToolName]
	if !ok {
		return in, call, nil
	}
	paths, err := edit(in.ToolInput)
	if err != nil {
		return in, call, fmt.Errorf("%s's %s call: %w", runtime, in.ToolName, err)
	}
	call.Paths = paths
	return in, call, nil
}

// pathFields is an editing tool whose arguments name its file in one of
// the given fields. A call that names none cannot be checked, so it is an
// error, not a pass.
func pathFields(fields ...string) editingTool {
	return func(args json.RawMessage) ([]string, error) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(args, &m); err != nil {
			return nil, fmt.Errorf("tool_input is not a JSON object: %w", err)
		}
		var paths []string
		for _, f := range fields {
			raw, ok := m[f]
			if !ok {
				continue
			}
			var p string
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, fmt.Errorf("tool_input.%s is not a string", f)
			}
			if p != "" {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("tool_input names no file (%s)", strings.Join(fields, " or "))
		}
		return paths, nil
	}
}

// exit2Runtime is the hook of a runtime that reads the shared pre-tool
// input (as runtime names itself) and answers as Claude Code, Codex and
// Gemini CLI all do. A free call gets silence and exit 0: the runtime goes
// on as if there were no hook (its own permission rules still apply;
// silence approves nothing). A refusal is exit code 2 with the reason on
// stderr, which they hand to the model. (Any other non-zero code is, to
// each of them, a hook that failed, and the tool call goes on.)
func exit2Runtime(name, runtime string, tools map[string]editingTool) hookRuntime {
	return hookRuntime{
		Name: name,
		Read: func(input []byte) (toolCall, error) {
			_, call, err := readPreToolCall(runtime, input, tools)
			return call, err
		},
		Allow: func(io.Writer) error { return nil },
		Refuse: func(_, stderr io.Writer, r refusal) error {
			fmt.Fprint(stderr, r.Reason)
			return &SilentError{Code: hookBlock}
		},
	}
}

// hookBlock is the exit code that makes Claude Code, Codex and Gemini CLI
// refuse a tool call.
const hookBlock = 2
