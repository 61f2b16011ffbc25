package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/reservations"
)

// Hook formats `check --hook` reads: an agent runtime's pre-tool hook
// input on stdin, so an edit of a path another droid holds is refused
// before it happens instead of at commit time.
const hookClaude = "claude"

var hookFormats = []string{hookClaude}

// claudeToolCall is Claude Code's PreToolUse hook input: the tool and its
// arguments. The editing tools name their file in file_path (Edit,
// MultiEdit, Write) or notebook_path (NotebookEdit), as absolute paths.
type claudeToolCall struct {
	ToolName  string `json:"tool_name"`
	ToolInput struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Edits        []struct {
			FilePath string `json:"file_path"`
		} `json:"edits"`
	} `json:"tool_input"`
}

// hookPaths are the paths a tool call would change.
func hookPaths(format string, in io.Reader) ([]string, error) {
	if format != hookClaude {
		return nil, &UsageError{Command: "check", Msg: fmt.Sprintf("--hook %q: the formats are %s", format, strings.Join(hookFormats, ", "))}
	}
	var call claudeToolCall
	if err := json.NewDecoder(in).Decode(&call); err != nil {
		return nil, fmt.Errorf("check --hook claude: the tool call on stdin is not JSON: %w", err)
	}
	var paths []string
	add := func(p string) {
		if p != "" && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	add(call.ToolInput.FilePath)
	add(call.ToolInput.NotebookPath)
	for _, e := range call.ToolInput.Edits {
		add(e.FilePath)
	}
	return paths, nil
}

// blockEdit says, for the agent, why its edit is refused and what to do:
// Claude Code shows stderr to the model when a hook exits 2.
func blockEdit(w io.Writer, o checkOptions, me string, holds []reservations.Hold) error {
	now := o.Env.Now()
	for _, h := range holds {
		r := h.Reservation
		fmt.Fprintf(w, "git-queen: %s is reserved exclusively by %s (pattern %s%s, until %s, %s)",
			h.Path, r.Droid, r.Pattern, forIssue(r.IssueID), r.Expiry().UTC().Format("15:04Z"), relTime(now, r.Expiry()))
		if r.Reason != "" {
			fmt.Fprintf(w, ": %q", r.Reason)
		}
		fmt.Fprintln(w, ".")
	}
	holder := holds[0].Reservation.Droid
	fmt.Fprintf(w, "Do not edit it. Ask %s for it: git queen msg send --to %s --subject %q --body WHY, then git queen msg wait --from %s; "+
		"or work on other paths until the reservation ends.", holder, holder, "may I edit "+holds[0].Path+"?", holder)
	if me == "" {
		fmt.Fprint(w, " (No droid identity is set, so every exclusive reservation counts: set QUEEN_DROID.)")
	}
	fmt.Fprintln(w)
	return &SilentError{Code: hookBlock}
}

// hookBlock is the exit code that makes Claude Code refuse the tool call
// and show the agent stderr (any other non-zero code lets the call go on).
const hookBlock = 2
