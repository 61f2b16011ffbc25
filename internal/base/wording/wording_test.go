package wording

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// flags are the words of a command line whose flags are all --name.
var flags = CommandLine(func(p Param) string { return "--" + strings.ReplaceAll(string(p), "_", "-") })

func TestTextIn(t *testing.T) {
	for _, tt := range []struct {
		text         Text
		tools, flags string
	}{
		{Textf("plain %d%%", 5), "plain 5%", "plain 5%"},
		{Textf("%s: give a duration", Param("wait_timeout")), "wait_timeout: give a duration", "--wait-timeout: give a duration"},
		{Textf("use %s to reserve anyway", Switch("force")), "use force=true to reserve anyway", "use --force to reserve anyway"},
		{Textf("ask (%s %s %s)", Run("msg send"), Param("to"), "ann"), "ask (send to ann)", "ask (git queen msg send --to ann)"},
		// A Value is one shell word on the command line, as it is to a tool.
		{Textf("ask (%s %s %s)", Run("msg send"), Param("to"), Value("ann")), "ask (send to ann)", "ask (git queen msg send --to ann)"},
		{Textf("ask (%s %s %s)", Run("msg send"), Param("to"), Value("$(rm${IFS}x)'s")), "ask (send to $(rm${IFS}x)'s)",
			`ask (git queen msg send --to '$(rm${IFS}x)'\''s')`},
		{Textf("run %s again", Run("ready", "claim")), "run ready with claim=true again", "run git queen ready --claim again"},
		{Textf("see %s", Run("reserve", "wait", "force")), "see reserve with wait=true and force=true", "see git queen reserve --wait --force"},
		// A Text among the arguments is said in the same words, and so is
		// an Error's.
		{Textf("a%s", Textf(" (%s)", Switch("all"))), "a (all=true)", "a (--all)"},
		{Textf("%v", Errorf("x %s", Switch("new"))), "x new=true", "x --new"},
		// What only the command line can do is left out of Tools' words.
		{Textf("retry%s.", CommandLineOnly(Textf(", or %s", Run("reserve", "offline")))), "retry.", "retry, or git queen reserve --offline."},
		{Textf("%v", Errorf("x%s", CommandLineOnly(Textf(" (%s)", Switch("offline"))))), "x", "x (--offline)"},
		// What only an MCP client says is left out of the command line's.
		{Textf("end it: %v%v", CommandLineOnly(Textf("git queen unassign -- %s", "-x")), ToolsOnly(Textf("%s with issue %q", Run("unassign"), "-x"))),
			`end it: unassign with issue "-x"`, "end it: git queen unassign -- -x"},
		{Textf("%v", Errorf("x%s", ToolsOnly(Textf(" (%s)", Switch("all"))))), "x (all=true)", "x"},
		// %w reads as %v.
		{Textf("%w; again", errors.New("lost")), "lost; again", "lost; again"},
	} {
		if got := tt.text.String(); got != tt.tools {
			t.Errorf("String() = %q, want %q", got, tt.tools)
		}
		if got := tt.text.In(flags); got != tt.flags {
			t.Errorf("In(flags) = %q, want %q", got, tt.flags)
		}
	}
}

func TestErrorf(t *testing.T) {
	// Without a parameter it is fmt.Errorf's error, which wraps as %w does.
	plain := Errorf("read: %w", fs.ErrNotExist)
	if _, ok := plain.(Error); ok || !errors.Is(plain, fs.ErrNotExist) || plain.Error() != "read: file does not exist" {
		t.Errorf("Errorf without parameters = %#v (%v)", plain, plain)
	}
	// With one it is an Error that a front end can say in its own words,
	// and still wraps the errors among its arguments.
	err := Errorf("%s: %w", Param("reply_to"), fs.ErrNotExist)
	var worded Error
	if !errors.As(err, &worded) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Errorf with a parameter = %#v: not an Error wrapping fs.ErrNotExist", err)
	}
	if err.Error() != "reply_to: file does not exist" || worded.Text().In(flags) != "--reply-to: file does not exist" {
		t.Errorf("Errorf with a parameter says %q, and on the command line %q", err.Error(), worded.Text().In(flags))
	}
	if !(Text{}).IsZero() || Textf("x").IsZero() {
		t.Errorf("IsZero: the zero Text is %v, Textf(\"x\") %v", (Text{}).IsZero(), Textf("x").IsZero())
	}
}

// TestShellWord: a word is left as it is only where no shell reads it
// otherwise. zsh (macOS's shell) expands a word that starts with = to the
// path of the command it names: --to =rm sent to "/bin/rm".
func TestShellWord(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"bob", "bob"},
		{"src/a.go", "src/a.go"},
		{"a=b", "a=b"},
		{"=rm", "'=rm'"},
		{"~bob", "'~bob'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
	} {
		if got := ShellWord(c.in); got != c.want {
			t.Errorf("ShellWord(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
