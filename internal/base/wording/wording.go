// Package wording lets the domain and the application write a message that
// tells its reader which parameter to set or which command to run, without
// knowing which front end shows it: the command line says "--force" and
// "git queen msg send", an MCP client "force=true" and "send". A message
// is a format and its arguments, as fmt's, among which the parameters and
// calls it names; each front end spells them in its own words.
package wording

import (
	"fmt"
	"strings"
)

// Param is a request's parameter, by the name the request gives it (its
// JSON name: "ttl", "reply_to").
type Param string

// Switch is a boolean parameter a message asks the reader to set ("force").
type Switch string

// Value is what a message puts in a call it asks the reader to run, after
// a parameter (a droid's name after to): the command line makes it one
// shell word, since it may come from anyone who can write a record.
type Value string

// Call is a command a message asks the reader to run, with switches set.
type Call struct {
	// Command is the command's name on the command line ("msg send").
	Command  string
	Switches []Switch
}

// Run is the call of command with switches set.
func Run(command string, switches ...Switch) Call {
	return Call{Command: command, Switches: switches}
}

// CommandLineOnly is a part of a message that names what only the
// command line can do (reserve --offline: no tool of the MCP server grants
// without publishing). The command line says it; Tools leave it out, so it
// must read as an aside (", or ...").
type CommandLineOnly Text

// ToolsOnly is a part of a message that names what only an MCP client
// does or cannot do the command line's way: an issue id that starts with
// "-" is given as a tool's argument, where the command line needs "--"
// before it; an identity is the server's, set where it starts. Tools say
// it; the command line leaves it out, beside a CommandLineOnly part that
// says the same in its words.
type ToolsOnly Text

// Words say parameters, switches and calls in one front end's words.
type Words struct {
	Param  func(Param) string
	Switch func(Switch) string
	Call   func(Call) string
	// Value says a Value (as it is when nil).
	Value func(Value) string
	// CommandLine says the CommandLineOnly parts of a message.
	CommandLine bool
}

// Tools are the words of an MCP client: a parameter by its name, a switch
// as name=true, a call as its tool (the command's last word) with the
// switches it sets ("reserve with wait=true").
var Tools = Words{
	Param:  func(p Param) string { return string(p) },
	Switch: toolSwitch,
	Call: func(c Call) string {
		tool := c.Command[strings.LastIndexByte(c.Command, ' ')+1:]
		if len(c.Switches) == 0 {
			return tool
		}
		set := make([]string, len(c.Switches))
		for i, s := range c.Switches {
			set[i] = toolSwitch(s)
		}
		return tool + " with " + strings.Join(set, " and ")
	},
}

func toolSwitch(s Switch) string { return string(s) + "=true" }

// CommandLine are the words of git queen's command line, whose flags flag
// names (the front end knows those not called --name): a switch as its
// flag, a call as git queen, the command and its switches' flags, and the
// CommandLineOnly parts said.
func CommandLine(flag func(Param) string) Words {
	return Words{
		Param:  flag,
		Switch: func(s Switch) string { return flag(Param(s)) },
		Call: func(c Call) string {
			call := "git queen " + c.Command
			for _, s := range c.Switches {
				call += " " + flag(Param(s))
			}
			return call
		},
		Value:       func(v Value) string { return ShellWord(string(v)) },
		CommandLine: true,
	}
}

// ShellWord is s as one word of a POSIX shell's command line: as it is
// when every byte is one no shell gives a meaning to, else in single
// quotes. A person or an agent runs the commands a message suggests as
// they read them, and a droid's name ($(...) is a valid one) or a path
// in them must not run anything, nor mean another word: zsh expands a
// word that starts with = to a command's path (=rm is /bin/rm).
func ShellWord(s string) string {
	if s != "" && s[0] != '=' && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Text is a message that names parameters or calls: fmt's format and
// arguments, among which Params, Switches, Calls and other Texts.
type Text struct {
	format string
	args   []any
}

// Textf is the message format with args (fmt.Sprintf's; %w reads as %v).
func Textf(format string, args ...any) Text {
	return Text{format: format, args: args}
}

// IsZero reports whether t is no message at all.
func (t Text) IsZero() bool { return t.format == "" && t.args == nil }

// String is the message in an MCP client's words (Tools): the words of
// the requests every use case takes.
func (t Text) String() string { return t.In(Tools) }

// In is the message in w's words.
func (t Text) In(w Words) string {
	args := make([]any, len(t.args))
	for i, a := range t.args {
		switch a := a.(type) {
		case Param:
			args[i] = w.Param(a)
		case Switch:
			args[i] = w.Switch(a)
		case Call:
			args[i] = w.Call(a)
		case Value:
			args[i] = string(a)
			if w.Value != nil {
				args[i] = w.Value(a)
			}
		case Text:
			args[i] = a.In(w)
		case CommandLineOnly:
			args[i] = ""
			if w.CommandLine {
				args[i] = Text(a).In(w)
			}
		case ToolsOnly:
			args[i] = ""
			if !w.CommandLine {
				args[i] = Text(a).In(w)
			}
		case Error:
			args[i] = a.Text().In(w)
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(strings.ReplaceAll(t.format, "%w", "%v"), args...)
}

// Error is an error whose message names parameters or calls, for a front
// end to say in its own words: its Error is its Text in Tools' words.
type Error interface {
	error
	Text() Text
}

// Errorf is fmt.Errorf for a message that may name parameters or calls:
// with any among args it is an Error (and unwraps to the errors among
// args), else fmt.Errorf's own.
func Errorf(format string, args ...any) error {
	for _, a := range args {
		switch a.(type) {
		case Param, Switch, Call, Value, Text, CommandLineOnly, ToolsOnly, Error:
			return &textError{Textf(format, args...)}
		}
	}
	return fmt.Errorf(format, args...)
}

type textError struct{ text Text }

func (e *textError) Error() string { return e.text.String() }
func (e *textError) Text() Text    { return e.text }

// Unwrap is the errors among the message's arguments, for errors.Is and
// errors.As.
func (e *textError) Unwrap() []error {
	var errs []error
	for _, a := range e.text.args {
		if err, ok := a.(error); ok {
			errs = append(errs, err)
		}
	}
	return errs
}
