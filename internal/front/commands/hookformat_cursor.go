package commands

import (
	"encoding/json"
	"fmt"
	"io"
)

// cursorRuntime is Cursor's preToolUse hook (the generic hook that runs
// before every agent tool; afterFileEdit runs after the edit and cannot
// refuse it). Its input on stdin is {"hook_event_name": "preToolUse",
// "tool_name", "tool_input", "tool_use_id", "cwd", "workspace_roots",
// "conversation_id", ...}; the answer is JSON on stdout, {"permission":
// "deny", "user_message", "agent_message"} to refuse, and Cursor wants JSON
// on every path, so a free call gets {}, which decides nothing (it neither
// allows nor asks: Cursor's own approval still applies).
var cursorRuntime = hookRuntime{
	Name: "cursor",
	Read: func(input []byte) (toolCall, error) {
		in, call, err := readPreToolCall("Cursor", input, cursorEditingTools)
		if call.Cwd == "" && len(in.WorkspaceRoots) > 0 {
			call.Cwd = in.WorkspaceRoots[0] // live payloads may carry only the roots
		}
		return call, err
	},
	Allow: func(stdout io.Writer) error {
		_, err := fmt.Fprintln(stdout, "{}")
		return err
	},
	Refuse: func(stdout, _ io.Writer, r refusal) error {
		// JSON escapes what it must; the human output's escapes (\x7f) are no JSON.
		return json.NewEncoder(rawWriter(stdout)).Encode(cursorAnswer{Permission: "deny", UserMessage: r.Summary, AgentMessage: r.Reason})
	},
}

// cursorAnswer is a preToolUse hook's answer to Cursor.
type cursorAnswer struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
}

// cursorEditingTools are Cursor's agent tools that change files: Write is
// the tool type Cursor's hooks name its file edits by (its afterFileEdit
// and preToolUse matchers), and Delete its removal of a file (Cursor 3
// and later), each with the file in tool_input.file_path. Read, Grep,
// Shell, Task and MCP tools pass.
var cursorEditingTools = map[string]editingTool{
	"Write":  pathFields("file_path"),
	"Delete": pathFields("file_path"),
}
