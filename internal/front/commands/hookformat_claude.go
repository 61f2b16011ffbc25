package commands

// claudeRuntime is Claude Code's PreToolUse hook. Its input on stdin is
// {"session_id", "transcript_path", "cwd", "permission_mode",
// "hook_event_name": "PreToolUse", "tool_name", "tool_input", "tool_use_id"};
// exit code 2 refuses the call and shows stderr to the model; exit 0 with
// nothing printed lets it go on through the usual permission checks.
var claudeRuntime = exit2Runtime("claude", "Claude Code", claudeEditingTools)

// claudeEditingTools are Claude Code's tools that change files (its file
// paths are absolute). Read, Grep, Glob, LS, WebFetch and the rest change
// nothing; Bash changes what its command changes, which no hook can know
// (the pre-commit hook still judges it).
var claudeEditingTools = map[string]editingTool{
	"Write":        pathFields("file_path"),
	"Edit":         pathFields("file_path"),
	"MultiEdit":    pathFields("file_path"),
	"NotebookEdit": pathFields("notebook_path"),
}
