package commands

// geminiRuntime is Gemini CLI's BeforeTool hook. Its input on stdin is
// {"session_id", "transcript_path", "cwd", "hook_event_name": "BeforeTool",
// "timestamp", "tool_name", "tool_input", ...}; exit code 2 blocks the tool
// and sends stderr to the agent as the reason (the turn goes on); exit 0
// with nothing on stdout lets it run. Exit 1 is only a warning to Gemini
// CLI, so every refusal, a failure to check included, exits 2.
var geminiRuntime = exit2Runtime("gemini", "Gemini CLI", geminiEditingTools)

// geminiEditingTools are Gemini CLI's built-in tools that change files
// (Kind "Edit" in its tools reference); a relative file_path is relative to
// the project directory, which is the hook's cwd. read_file, glob,
// grep_search, list_directory, web_fetch and the rest change nothing;
// run_shell_command changes what its command changes, which no hook can
// know.
var geminiEditingTools = map[string]editingTool{
	"write_file": pathFields("file_path"),
	"replace":    pathFields("file_path"),
}
