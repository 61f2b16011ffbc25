package commands

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// codexRuntime is Codex's PreToolUse hook. Its input on stdin is
// {"session_id", "turn_id", "transcript_path", "cwd", "hook_event_name":
// "PreToolUse", "model", "permission_mode", "tool_name", "tool_input",
// "tool_use_id"}. Exit code 2 with a reason on stderr blocks the call and
// gives the reason to the model (exit 2 with an empty stderr, or any other
// code, is only a failed hook to Codex, and the call goes on).
var codexRuntime = exit2Runtime("codex", "Codex", codexEditingTools)

// codexEditingTools: Codex edits files with apply_patch, whose tool_input
// is {"command": PATCH}, the patch text naming every file it adds, updates,
// deletes or moves. A shell command that runs apply_patch on a patch it
// carries (the model sometimes writes `apply_patch <<'EOF' ... EOF`) is
// applied the same way, so a Bash call that is one is read as one; any
// other Bash call changes what its command changes, which no hook can
// know. MCP tools pass.
var codexEditingTools = map[string]editingTool{
	"apply_patch": codexApplyPatch,
	"Bash":        codexShellApplyPatch,
}

func codexApplyPatch(args json.RawMessage) ([]string, error) {
	var in struct {
		Command *string `json:"command"`
		Input   *string `json:"input"` // the function-call form's field
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("tool_input is not {\"command\": PATCH}: %w", err)
	}
	if patch := cmp.Or(in.Command, in.Input); patch != nil {
		return patchPaths(*patch)
	}
	return nil, errors.New("tool_input carries no patch (command)")
}

// leadingCd is a `cd DIR &&` a script starts with, which makes the
// patch's paths relative to DIR.
var leadingCd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*cd\s+('[^']*'|"[^"]*"|[^\s'"&;|]+)\s*&&`) })

// codexShellApplyPatch reads a shell call that runs apply_patch with a
// patch written into the command (a heredoc, or a quoted argument its
// apply_patch program reads): Codex applies it as a patch, or that program
// does. One that runs apply_patch on no envelope it carries (apply_patch <
// FILE, cat FILE | apply_patch) is refused (readScript): its patch is out
// of the guard's sight. One that only names it (which apply_patch) is like any
// other shell command, which the guard cannot read.
func codexShellApplyPatch(args json.RawMessage) ([]string, error) {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, nil // not a shell call the guard can read: not an edit it can see
	}
	var script string
	if json.Unmarshal(in.Command, &script) != nil {
		var argv []string
		if json.Unmarshal(in.Command, &argv) != nil || len(argv) == 0 {
			return nil, nil
		}
		switch {
		case len(argv) == 2 && (argv[0] == "apply_patch" || argv[0] == "applypatch"):
			return patchPaths(argv[1])
		case len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c"):
			script = argv[2]
		default:
			script = strings.Join(argv, " ")
		}
	}
	if applyPatchRuns(script) == 0 {
		return nil, nil
	}
	envelopes, dir, dirErr := readScript(script)
	var paths []string
	for _, envelope := range envelopes {
		if envelope.expands && strings.ContainsAny(envelope.text, "$`") {
			// $NL or $(printf ...) can write a section the guard never sees.
			return nil, fmt.Errorf("the patch, %s, holds $ or `, which the shell replaces with text the guard cannot read; pass the patch in a quoted heredoc (apply_patch <<'EOF')", envelope.where())
		}
		found, err := patchPaths(envelope.text)
		if err != nil {
			return nil, err
		}
		for _, p := range found {
			if strings.ContainsAny(p, envelope.quote) || envelope.expands && strings.Contains(p, `\`) {
				return nil, fmt.Errorf("the patch, %s, names %s, which the shell may read as another name; pass the patch in a quoted heredoc (apply_patch <<'EOF')", envelope.where(), p)
			}
		}
		paths = append(paths, found...)
	}
	if dirErr != nil {
		return nil, dirErr
	}
	for i, p := range paths {
		if dir != "" && !filepath.IsAbs(p) {
			paths[i] = filepath.Join(dir, p)
		}
	}
	return paths, nil
}

// changesDirectory finds a command that changes the shell's directory,
// quoted or in a script of its own (bash -c 'cd src && ...').
var changesDirectory = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s;&|('"\\])(?:cd|pushd|popd)(?:$|[\s;&|)'"])`)
})

// readScript reads a script's patches (patchEnvelopes) and the directory
// they apply in, relative to its working directory: the one its leading
// `cd DIR &&` enters, "" without one. It refuses a script whose patches
// would apply in a directory the guard cannot name: one a cd other than
// the leading one enters before a patch (cd src; apply_patch, cd a && cd b
// && apply_patch, a cd between two patches), or a leading cd to a directory
// the shell would expand ($VAR, ~, cd -). The guard would judge the
// patch's paths in the wrong directory and let a reserved file through. It
// also refuses a patch begun outside the envelopes the guard reads (printf
// '*** Begin Patch\n...' | apply_patch), before or after them, which would
// pass unread, and one that runs apply_patch more often than on patches it
// carries (a readable heredoc, then apply_patch < FILE), which the guard
// would judge on the readable patch alone. The refusal comes with the
// patches, which the caller judges first.
func readScript(script string) ([]envelope, string, error) {
	const advice = "; run apply_patch from the working directory, or start the command with cd DIR && apply_patch"
	dir := ""
	m := leadingCd().FindStringSubmatch(script)
	if m != nil {
		dir = strings.Trim(m[1], `'"`)
		script = script[len(m[0]):]
	}
	envelopes, outside, beforeLast := patchEnvelopes(script)
	run := 0
	for _, e := range envelopes {
		if e.run {
			run++
		}
	}
	switch {
	case m != nil && (dir == "-" || strings.HasPrefix(dir, "~") || strings.ContainsAny(m[1], "$`")):
		return envelopes, "", fmt.Errorf("the command's patch applies in %s, which the shell expands and the guard cannot name%s", m[1], advice)
	case strings.Contains(outside, patchBegin):
		return envelopes, "", errors.New("the command writes a patch whose lines the shell makes (printf, echo -e, $'...'), which the guard cannot read; pass the patch in a quoted heredoc (apply_patch <<'EOF')")
	case changesDirectory().MatchString(beforeLast): // a cd after the last patch moves none
		return envelopes, "", fmt.Errorf("the command changes directory (cd) where the guard cannot follow it%s", advice)
	case applyPatchRuns(outside) > run:
		return envelopes, "", errors.New("the command runs apply_patch on a patch it does not carry (from a file, a variable or another command), " +
			"which the guard cannot read; pass the patch in a quoted heredoc (apply_patch <<'EOF')")
	}
	return envelopes, dir, nil
}

// envelope is one patch of a script, with the quote it is written in:
// "" for a heredoc, ' or " for a patch passed as an argument (apply_patch
// '*** Begin Patch...', echo '...' | apply_patch), which the shell reads
// as quoted text; expands when the shell expands $, ` and \ in it (double
// quotes, a heredoc whose delimiter is unquoted: <<EOF); run when
// apply_patch is run on it (apply_patch <<'EOF', echo '...' | apply_patch),
// not when something else reads it (cat > /dev/null <<'EOF').
type envelope struct {
	text, quote  string
	expands, run bool
}

// where says how the patch is written, for a refusal.
func (e envelope) where() string {
	if e.quote == "" {
		return "a heredoc whose delimiter is unquoted"
	}
	return "an argument in " + e.quote + " quotes"
}

// heredocOperator finds a heredoc's operator and its delimiter word, and
// doubleQuotedScript a shell given its script in double quotes (bash -lc
// "...", bash -c -- "...", bash -c 'x'"...", eval "..."), which the outer
// shell expands before that shell reads it.
var (
	heredocOperator    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<<-?\s*(\S*)`) })
	doubleQuotedScript = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|\s)(?:-[a-z]*c(?:\s+--)?\s+(?:'[^']*'|[^\s"'])*|eval\s[^;&|"]*)"`)
	})
)

// patchEnvelopes are the "*** Begin Patch" ... "*** End Patch" blocks of a
// script, each a patch, its markers alone on their lines or, in a quoted
// argument, at the end and start of theirs; an unterminated one runs to the
// end, where patchPaths will say what is missing. outside is the script
// without the patches' own lines, and beforeLast its part before the last
// patch closes (all of it when none does).
func patchEnvelopes(script string) (envelopes []envelope, outside, beforeLast string) {
	lines := strings.Split(strings.ReplaceAll(script, "\r\n", "\n"), "\n")
	var pieces []string          // outside, a piece a line
	last := -1                   // how many pieces come before the last patch closes
	var delimiter []string       // the last heredoc operator's match, outside the patches
	operatorLine := ""           // its line, until a heredoc's patch takes it
	nested, lost := false, false // in a script in double quotes (bash -c "..."); for good
	for i := 0; i < len(lines); i++ {
		before, quote, opens := envelopeOpens(lines[i])
		pieces = append(pieces, before)
		nested, lost = inDoubleQuotedScript(nested, lost, before)
		if !opens {
			if ops := heredocOperator().FindAllStringSubmatch(lines[i], -1); ops != nil {
				delimiter, operatorLine = ops[len(ops)-1], lines[i]
			}
			continue
		}
		body, runner, tabs := []string{patchBegin}, before, false
		if strings.TrimSpace(before) == "" {
			runner, operatorLine = operatorLine, "" // a heredoc's patch: its operator's line runs it
			// <<-: the shell strips its lines' leading tabs before apply_patch reads them
			tabs = delimiter != nil && strings.HasPrefix(delimiter[0], "<<-")
		}
		j := i + 1
		for ; j < len(lines); j++ {
			if tabs {
				lines[j] = strings.TrimLeft(lines[j], "\t")
			}
			if after, closes := envelopeCloses(lines[j], quote); closes {
				runner += "\n" + after // echo '...' | apply_patch
				body = append(body, patchEnd)
				last = len(pieces)
				pieces = append(pieces, after)
				break
			}
			body = append(body, lines[j])
		}
		if nested {
			quote = `"` // the outer shell expands the script, whatever quotes it holds
		}
		expands := quote == `"` || quote == "" && delimiter != nil && !strings.ContainsAny(delimiter[1], `'"\`)
		envelopes = append(envelopes, envelope{strings.Join(body, "\n"), quote, expands, applyPatchRuns(runner) > 0})
		i = j
	}
	if last < 0 {
		last = len(pieces)
	}
	return envelopes, strings.Join(pieces, "\n"), strings.Join(pieces[:last], "\n")
}

// inDoubleQuotedScript says whether a script in double quotes (bash -c
// "...") is open after line, given whether one was before it, and whether
// the guard has lost track of where it ends: for good after a $(, ${ or `
// in it, whose own quotes do not close it. An honest python -c "..." or
// grep -c "..." before a quoted heredoc ends where its quotes do: taken
// for open to the end, it had the heredoc's $ refused.
func inDoubleQuotedScript(open, lost bool, line string) (bool, bool) {
	for i := 0; i < len(line) && !lost; i++ {
		switch c := line[i]; {
		case !open:
			loc := doubleQuotedScript().FindStringIndex(line[i:])
			if loc == nil {
				return false, false
			}
			open, i = true, i+loc[1]-1
		case c == '\\':
			i++
		case c == '"' && i+1 < len(line) && !strings.ContainsRune(" \t;&|()<>", rune(line[i+1])):
			lost = true // the word goes on ("a""b" is one argument): it may reopen
		case c == '"':
			open = false
		case c == '`' || c == '$' && i+1 < len(line) && (line[i+1] == '(' || line[i+1] == '{'):
			lost = true
		}
	}
	return open || lost, lost
}

// envelopeOpens reports whether a script's line opens a patch: the marker
// alone, or at the line's end after a space or the quote that opens an
// argument; before is the script before the marker.
func envelopeOpens(line string) (before, quote string, opens bool) {
	before, opens = strings.CutSuffix(strings.TrimRight(line, " \t\r"), patchBegin)
	if !opens {
		return line, "", false
	}
	if strings.TrimSpace(before) == "" {
		return "", "", true
	}
	switch q := before[len(before)-1:]; q {
	case "'", `"`:
		return before[:len(before)-1], q, true
	case " ", "\t":
		return before, "", true
	}
	return line, "", false
}

// envelopeCloses reports whether a line of a patch opened with quote closes
// it; after is the script after the marker and the quote. A line that
// starts with a space is a hunk's context line (" *** End Patch" in a file
// about patches), which Codex reads as one: closing there left the
// sections after it unread.
func envelopeCloses(line, quote string) (after string, closes bool) {
	if strings.HasPrefix(line, " ") {
		return "", false
	}
	t := strings.TrimSpace(line)
	if t == patchEnd {
		return "", true
	}
	after, closes = strings.CutPrefix(t, patchEnd+quote)
	return after, closes && quote != ""
}

// The apply_patch envelope's markers.
const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File: "
	patchDelete = "*** Delete File: "
	patchUpdate = "*** Update File: "
	patchMove   = "*** Move to: "
	patchEOF    = "*** End of File"
)

// patchPaths reads an apply_patch envelope and returns every path it
// changes: each file it adds, deletes or updates, and the destination of
// each move (a move changes both ends). It reads the envelope the way
// Codex does, markers tolerant of surrounding spaces and an optional
// heredoc around the whole (<<'EOF' ... EOF), and walks it section by
// section, so that a line of a file's content that looks like a header is
// content. A patch it cannot read is an error: Codex might apply what the
// guard did not understand.
func patchPaths(patch string) ([]string, error) {
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(patch), "\r\n", "\n"), "\n")
	if len(lines) >= 4 && slices.Contains([]string{"<<EOF", "<<'EOF'", `<<"EOF"`}, lines[0]) && strings.HasSuffix(lines[len(lines)-1], "EOF") {
		lines = lines[1 : len(lines)-1]
	}
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != patchBegin {
		return nil, errors.New(`the patch does not begin with "*** Begin Patch"`)
	}
	if strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, errors.New(`the patch does not end with "*** End Patch"`)
	}
	body := lines[1 : len(lines)-1]
	var paths []string
	for i := 0; i < len(body); {
		header := strings.TrimSpace(body[i])
		i++
		switch {
		case header == "":
			// blank lines between sections
		case strings.HasPrefix(header, patchAdd):
			paths = append(paths, strings.TrimPrefix(header, patchAdd))
			for i < len(body) && strings.HasPrefix(body[i], "+") {
				i++
			}
		case strings.HasPrefix(header, patchDelete):
			paths = append(paths, strings.TrimPrefix(header, patchDelete))
		case strings.HasPrefix(header, patchUpdate):
			paths = append(paths, strings.TrimPrefix(header, patchUpdate))
			if i < len(body) && strings.HasPrefix(body[i], patchMove) {
				paths = append(paths, strings.TrimPrefix(body[i], patchMove))
				i++
			}
			// The hunks run to the next section: a line that starts with
			// '*' other than "*** End of File".
			for i < len(body) && (!strings.HasPrefix(body[i], "*") || strings.TrimSpace(body[i]) == patchEOF) {
				i++
			}
		case header == strings.TrimSpace(patchAdd) || header == strings.TrimSpace(patchDelete) || header == strings.TrimSpace(patchUpdate):
			return nil, fmt.Errorf("patch line %d, %q, names no file", i+1, header)
		default:
			return nil, fmt.Errorf("patch line %d, %q, is not a section header (Add File, Delete File, Update File)", i+1, header)
		}
	}
	return firstSeen(paths), nil
}
