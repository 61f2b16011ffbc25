package commands

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/reservations"
)

// The edit guard: `check --hook NAME` is an agent runtime's pre-tool hook.
// It reads the tool call the runtime is about to run, finds the files it
// would change, and refuses the call, in the runtime's own convention, when
// another droid holds one of them exclusively: the edit never happens,
// instead of being refused at commit time after the agent built on it.

// toolCall is what the guard needs of a runtime's tool call: which tool,
// the directory its relative paths are relative to, and the paths it would
// change (none for a tool that does not edit).
type toolCall struct {
	Tool  string   `json:"tool"`
	Cwd   string   `json:"cwd,omitempty"`
	Paths []string `json:"paths"`
}

// refusal is why a tool call must not run: Reason, in full, for the agent
// (who holds the file, until when, how to ask), and Summary, one line, for
// a runtime that shows the person something shorter.
type refusal struct {
	Summary string
	Reason  string
}

// hookRuntime is one agent runtime's pre-tool hook contract, as its own
// documentation gives it: how its tool call reads, and how it is answered.
type hookRuntime struct {
	// Name is the value of --hook.
	Name string
	// Read finds the tool call in the hook's stdin. Only the tools the
	// runtime edits files with yield paths: an allow-list, so a tool it
	// adds later (a read, a search) is never refused by mistake.
	Read func(input []byte) (toolCall, error)
	// Allow answers for a call that may run.
	Allow func(stdout io.Writer) error
	// Refuse answers for a call that must not run; the error it returns
	// carries the exit code the runtime reads as a refusal.
	Refuse func(stdout, stderr io.Writer, r refusal) error
}

// hookRuntimes are the runtimes whose hooks can refuse an edit before it
// happens.
var hookRuntimes = []hookRuntime{claudeRuntime, codexRuntime, geminiRuntime, cursorRuntime}

func findHookRuntime(name string) (hookRuntime, error) {
	var names []string
	for _, rt := range hookRuntimes {
		if rt.Name == name {
			return rt, nil
		}
		names = append(names, rt.Name)
	}
	return hookRuntime{}, &UsageError{Command: "check", Msg: fmt.Sprintf("--hook %q: the runtimes are %s", name, strings.Join(names, ", "))}
}

// maxToolCallBytes bounds the tool call read from stdin. A Write carries
// the whole file, so the bound is generous; past it the guard refuses
// rather than guess.
const maxToolCallBytes = 64 << 20

// runEditGuard is check --hook. Any failure refuses the call with its
// cause: a guard that cannot check must not let the change through. A path
// in no repository is not a failure; it is none of ours.
func runEditGuard(o checkOptions) error {
	rt, err := findHookRuntime(o.Hook)
	if err != nil {
		return err
	}
	if len(o.Req.Paths) > 0 {
		return &UsageError{Command: "check", Msg: "with --hook the paths come from the tool call on stdin; give no PATH"}
	}
	o.Env = o.Env.guardEnv()
	holds, anonymous, err := editHolds(o, rt)
	if err != nil {
		return rt.Refuse(o.Env.Stdout, o.Env.Stderr, refusal{
			Summary: fmt.Sprintf("git-queen: could not check the edit against reservations: %v", err),
			Reason: fmt.Sprintf("git-queen: could not check the edit against reservations: %v\n"+
				"Fix the cause, or run the edit without the hook if you are sure no other droid holds the file.\n", err),
		})
	}
	if len(holds) == 0 {
		return rt.Allow(o.Env.Stdout)
	}
	return rt.Refuse(o.Env.Stdout, o.Env.Stderr, heldRefusal(o.Env.Now(), anonymous, holds))
}

// editHolds reads the tool call and returns the exclusive reservations of
// other droids on the paths it would change, each judged in the repository
// the path lies in, and whether a path was judged without an identity.
func editHolds(o checkOptions, rt hookRuntime) ([]reservations.Hold, bool, error) {
	input, err := io.ReadAll(io.LimitReader(o.Env.Stdin, maxToolCallBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading the tool call on stdin: %w", err)
	}
	if len(input) > maxToolCallBytes {
		return nil, false, fmt.Errorf("the tool call on stdin is larger than %d MiB", maxToolCallBytes>>20)
	}
	call, err := rt.Read(input)
	if err != nil || len(call.Paths) == 0 {
		return nil, false, err
	}
	base := o.Env.Dir // the runtime's cwd, when it says, is where the agent works
	if filepath.IsAbs(call.Cwd) {
		base = filepath.Clean(call.Cwd)
	} else if call.Cwd != "" {
		base = filepath.Join(base, call.Cwd)
	}
	return app.EditHolds(o.Env.session(o.G), base, call.Paths)
}

// maxHoldsShown bounds the holds a refusal lists: a patch of a thousand
// reserved files needs the first few and a count, not a thousand lines.
const maxHoldsShown = 10

// heldRefusal says, for the agent, why its edit is refused and what to do.
func heldRefusal(now time.Time, anonymous bool, holds []reservations.Hold) refusal {
	var b strings.Builder
	for i, h := range holds {
		if i == maxHoldsShown {
			fmt.Fprintf(&b, "git-queen: and %d more reserved paths.\n", len(holds)-i)
			break
		}
		r := h.Reservation
		fmt.Fprintf(&b, "git-queen: %s is reserved exclusively by %s (pattern %s%s, until %s, %s)",
			h.Path, r.Droid, r.Pattern, forIssue(r.IssueID), r.Expiry().UTC().Format("15:04Z"), relTime(now, r.Expiry()))
		if r.Reason != "" {
			fmt.Fprintf(&b, ": %q", r.Reason)
		}
		fmt.Fprintln(&b, ".")
	}
	first := holds[0]
	holder := first.Reservation.Droid
	it := "it"
	if len(holds) > 1 {
		it = "them"
	}
	fmt.Fprintf(&b, "Do not edit %s. Ask %s for it: git queen msg send --to %s --subject %s --body WHY, then git queen msg wait --from %s; "+
		"or work on other paths until the reservation ends.", it, holder, wording.ShellWord(holder), wording.ShellWord("may I edit "+first.Path+"?"), wording.ShellWord(holder))
	if anonymous {
		fmt.Fprint(&b, " (No droid identity is set, so every exclusive reservation counts: set QUEEN_DROID.)")
	}
	fmt.Fprintln(&b)
	return refusal{
		Summary: fmt.Sprintf("git-queen: %s is reserved exclusively by %s", first.Path, holder),
		Reason:  b.String(),
	}
}
