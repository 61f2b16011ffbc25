package commands

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
)

// statusBudget is how long status --hook may take before it gives up and
// prints a note instead: an agent's session waits for its start hook, and
// a store behind a held lock (a repair waits for it) must not hold it up.
const statusBudget = 3 * time.Second

// newStatusCmd builds `status`: what a droid should know when it starts.
func newStatusCmd(env *Env) *cli.Command {
	var hook string
	return &cli.Command{
		Name:  "status",
		Usage: "your unread messages and the active reservations, in a few lines (--hook RUNTIME: an agent's session-start hook)",
		Description: `Prints what a droid should know when it starts work: how many unread
messages it has and the newest few, and how many reservations are active,
its own first, then the others' newest.

With --hook RUNTIME (claude, codex, gemini or cursor), status is that
runtime's session-start hook: it prints the same lines as the JSON the
runtime adds to the agent's context (claude, codex, gemini:
{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext":
...}}; cursor: {"additional_context": ...}) and always exits 0: a store it
cannot read, or that takes longer than 3s, gives a one-line note instead, and
the session starts as usual. It does not read its standard input. For
Claude Code, in .claude/settings.json:

  {"hooks": {"SessionStart": [{"hooks": [{"type": "command",
    "command": "git queen status --hook claude"}]}]}}

The README's "Reminders where agents start" has the settings for each
runtime.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hook", Destination: &hook, Usage: "be an agent runtime's session-start hook (`RUNTIME`: claude, codex, gemini, cursor)"},
		},
		Action: noArgs("", func(c *cli.Context) error {
			g := readGlobals(c)
			if hook != "" {
				wrap, ok := sessionStartOutputs[hook]
				if !ok {
					return &UsageError{Command: "status", Msg: fmt.Sprintf("--hook %q: one of %s", hook, strings.Join(slices.Sorted(maps.Keys(sessionStartOutputs)), ", "))}
				}
				return printSessionStart(env, g, wrap)
			}
			res, err := app.Status.Run(env.session(g), app.StatusRequest{})
			if err != nil {
				return err
			}
			if res.SayIn(commandLine); g.JSON {
				return printJSON(env.Stdout, res)
			}
			warnProblems(env.Stderr, res.Problems)
			_, err = fmt.Fprint(env.Stdout, statusText(res, env.Now()))
			return err
		}),
	}
}

// sessionStartOutputs wrap the reminder in each runtime's session-start
// hook output. Claude Code, Codex and Gemini CLI read the same shape
// (hookSpecificOutput.additionalContext of a SessionStart event); Cursor's
// sessionStart hook reads additional_context.
var sessionStartOutputs = map[string]func(context string) any{
	"claude": hookSpecificContext,
	"codex":  hookSpecificContext,
	"gemini": hookSpecificContext,
	"cursor": func(context string) any {
		return map[string]any{"additional_context": context}
	},
}

func hookSpecificContext(context string) any {
	return map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": "SessionStart", "additionalContext": context}}
}

// printSessionStart prints the reminder as a session-start hook, and
// never fails: an error, a panic or a store slower than statusBudget
// becomes a one-line note in the context, and the exit code is 0.
func printSessionStart(env *Env, g globals, wrap func(string) any) error {
	done := make(chan string, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Sprintf("git-queen: no status (internal error: %v); run git queen status to see why\n", r)
			}
		}()
		res, err := app.Status.Run(env.session(g), app.StatusRequest{})
		if err != nil {
			done <- "git-queen: no status: " + firstLine(err.Error()) + "\n"
			return
		}
		res.SayIn(commandLine)
		text := statusText(res, env.Now())
		if n := len(res.Problems); n > 0 {
			// A hook's stderr reaches nobody: say it in the context.
			text += fmt.Sprintf("git-queen: %d line%s of the store could not be read and %s left out (git queen validate, git queen doctor)\n",
				n, plural(n, "", "s"), plural(n, "was", "were"))
		}
		done <- text
	}()
	var text string
	select {
	case text = <-done:
	case <-time.After(statusBudget):
		text = fmt.Sprintf("git-queen: no status: reading the store took longer than %s; run git queen status\n", statusBudget)
	}
	b, err := json.Marshal(wrap(text))
	if err != nil {
		return nil // cannot happen for maps of strings; never fail the session
	}
	fmt.Fprintf(rawWriter(env.Stdout), "%s\n", b)
	return nil
}

// statusText is the reminder: a line on the droid, its unread messages
// and the newest few, the active reservations and a few. What other
// droids wrote (subjects, patterns, reasons) is put on one line each.
func statusText(res *app.StatusResult, now time.Time) string {
	var b strings.Builder
	if res.Droid == "" && res.IdentityNote != "" {
		fmt.Fprintf(&b, "git-queen: no droid identity is set here, so there is no inbox to show: %s.\n", oneLine(res.IdentityNote))
	} else if res.Droid == "" {
		b.WriteString("git-queen: no droid identity is set here (QUEEN_DROID, or git queen init --droid NAME in this worktree), so there is no inbox to show.\n")
	} else {
		fmt.Fprintf(&b, "git-queen: you are droid %s.", oneLine(res.Droid))
		if res.Unread == 0 {
			b.WriteString(" No unread messages.\n")
		} else {
			fmt.Fprintf(&b, " %d unread message%s (git queen msg inbox --unread; read one: git queen msg read ID):\n", res.Unread, plural(res.Unread, "", "s"))
			for _, m := range res.Messages {
				imp := ""
				if m.Importance != "" && m.Importance != "normal" {
					imp = " [" + oneLine(m.Importance) + "]"
				}
				fmt.Fprintf(&b, "  - %s from %s, %s%s: %s\n", m.ID, oneLine(m.From), relTime(now, m.CreatedAt), imp, oneLine(m.Subject))
			}
			if more := res.Unread - len(res.Messages); more > 0 {
				fmt.Fprintf(&b, "  ... and %d more\n", more)
			}
		}
	}
	if res.Active == 0 {
		b.WriteString("No active reservations.\n")
	} else {
		fmt.Fprintf(&b, "%d active reservation%s (git queen reservations; before editing a path: git queen check PATH):\n", res.Active, plural(res.Active, "", "s"))
		for _, r := range res.Reservations {
			who := oneLine(r.Droid)
			if r.Droid == res.Droid {
				who = "you"
			}
			fmt.Fprintf(&b, "  - %s by %s, %s, expires %s", oneLine(r.Pattern), who, kindWord(r.Exclusive), relTime(now, r.Expiry()))
			if r.IssueID != "" {
				fmt.Fprintf(&b, ", issue %s", oneLine(r.IssueID))
			}
			b.WriteString("\n")
		}
		if more := res.Active - len(res.Reservations); more > 0 {
			fmt.Fprintf(&b, "  ... and %d more\n", more)
		}
	}
	return b.String()
}

// oneLine keeps text another droid wrote on its line, and harmless: line
// breaks and the characters safeWriter escapes become spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || mustEscape(r, len(string(r))) {
			return ' '
		}
		return r
	}, s)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return oneLine(s)
}
