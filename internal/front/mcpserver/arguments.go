package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// toolInput is a tool's input schema as it is published, resolved for
// validation: the server checks every call's arguments against it itself,
// so that a call that does not fit gets the {"error":...} shape of every
// other failure instead of the SDK's plain-text one.
type toolInput struct {
	tool     string
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// inputSchema is the schema of In with plain types (plainTypes), resolved.
// An error is a bug in an input struct, so it panics at start-up.
func inputSchema[In any](tool string) toolInput {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the input schema of %s: %v", tool, err))
	}
	plainTypes(s)
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the input schema of %s: %v", tool, err))
	}
	return toolInput{tool: tool, schema: s, resolved: resolved}
}

// plainTypes gives every type in s one plain name: jsonschema.For types a
// Go slice ["null","array"], which clients that fill arguments from the
// schema (the MCP Inspector among them) do not read as an array, and so
// send a string. A tool never needs null: an argument not given is absent.
func plainTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		} else {
			s.Types = types
		}
	}
	for _, p := range s.Properties {
		plainTypes(p)
	}
	plainTypes(s.Items)
	plainTypes(s.AdditionalProperties)
}

// decode checks the arguments of a call against the schema and reads them
// into an In. What is wrong is said per argument, in words an agent can act
// on: an unknown name (and the names the tool takes), a missing one (and
// what it is for), a wrong type (and what to send instead). null for an
// optional argument means "not given", as a client that fills a form may
// send it. Anything else the schema says is checked by the resolved
// schema itself.
func decode[In any](t toolInput, raw json.RawMessage) (In, error) {
	var in In
	args, problems := t.check(raw)
	if len(problems) == 0 {
		if err := t.resolved.Validate(anyMap(args)); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) == 0 {
		if err := t.refuseBlank(args); err != nil {
			return in, err
		}
		data, err := json.Marshal(args)
		if err == nil {
			d := json.NewDecoder(bytes.NewReader(data))
			d.DisallowUnknownFields()
			err = d.Decode(&in)
		}
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return in, &argumentsError{tool: t.tool, problems: problems}
	}
	return in, nil
}

// blankRefused are, per tool, the string arguments that are refused given
// blank instead of read as left out, each with what to give and what
// leaving it out does: left out, each widens what the call acts on (a
// wait that takes any message, a send that starts a thread instead of
// answering, a release of one's own reservations), so a blank one (an
// agent's unfilled template) would act on what the caller did not name.
// They are the flags the command line refuses empty (refuseEmpty).
var blankRefused = map[string]map[string][2]string{
	"send": {"reply_to": {"id of the message this answers", "start a new thread"}},
	"wait": {"from": {"droid name", "wait for any message"}, "thread": {"thread id", "wait for any message"},
		"issue": {"issue id", "wait for any message"}, "reply_to": {"message id", "wait for any message"},
		"timeout": waitBlank},
	"reserve":      {"wait_timeout": waitBlank},
	"release":      {"holder": {"droid whose reservations to release", "release your own"}},
	"renew":        {"holder": {"droid whose reservations to renew", "renew your own"}},
	"reservations": {"path": filterBlank, "droid": filterBlank},
	"assignments":  {"droid": filterBlank, "issue": filterBlank},
	"inbox":        {"since": filterBlank},
}

// filterBlank and waitBlank are what blankRefused says of a listing's
// filter and of a wait's timeout.
var filterBlank, waitBlank = [2]string{"value to filter by", "list them all"}, [2]string{"duration to wait (30s, 10m)", "wait 50s"}

// refuseBlank refuses an argument of blankRefused given as a blank string.
func (t toolInput) refuseBlank(args map[string]json.RawMessage) error {
	for _, name := range slices.Sorted(maps.Keys(blankRefused[t.tool])) {
		var v string
		if raw, given := args[name]; given && json.Unmarshal(raw, &v) == nil && strings.TrimSpace(v) == "" {
			say := blankRefused[t.tool][name]
			return fmt.Errorf("%s is empty: give the %s, or leave it out to %s", name, say[0], say[1])
		}
	}
	return nil
}

// argumentsError is a call whose arguments do not fit the tool's schema.
type argumentsError struct {
	tool     string
	problems []string
}

// maxProblems is how many problems an arguments error lists: a call with
// thousands of unknown members gets a message of a few lines, not one as
// large as the call.
const maxProblems = 10

func (e *argumentsError) Error() string {
	problems := e.problems
	if len(problems) > maxProblems {
		problems = append(slices.Clone(problems[:maxProblems]), fmt.Sprintf("and %d more", len(e.problems)-maxProblems))
	}
	return fmt.Sprintf("the arguments of %s do not fit its input schema (see tools/list):\n  %s",
		e.tool, strings.Join(problems, "\n  "))
}

// check reads raw as the arguments object and returns its members without
// the optional ones given as null, and the problems it found.
func (t toolInput) check(raw json.RawMessage) (map[string]json.RawMessage, []string) {
	args := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' || json.Unmarshal(trimmed, &args) != nil {
			return nil, []string{fmt.Sprintf("the arguments must be a JSON object such as {%s}, not %s", t.example(), describeValue(trimmed))}
		}
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(args)) {
		p, known := t.schema.Properties[name]
		switch {
		case !known:
			problems = append(problems, fmt.Sprintf("unknown argument %q: %s takes %s", clip(name, 64), t.tool, t.names()))
		case bytes.Equal(bytes.TrimSpace(args[name]), []byte("null")):
			delete(args, name) // checked as missing below if it is required
		default:
			if want, ok := fits(p, args[name]); !ok {
				problems = append(problems, fmt.Sprintf("argument %q must be %s, not %s%s", name, want, describeValue(args[name]), hint(p, args[name])))
			}
		}
	}
	for _, name := range t.schema.Required {
		if _, given := args[name]; !given {
			problems = append(problems, fmt.Sprintf("missing argument %q (%s): %s", name, typeWords(t.schema.Properties[name]), t.schema.Properties[name].Description))
		}
	}
	return args, problems
}

// fits says whether the JSON value v has the type the property schema p
// gives, and the words for that type.
func fits(p *jsonschema.Schema, v json.RawMessage) (string, bool) {
	want := typeWords(p)
	got := jsonType(v)
	switch p.Type {
	case "", got:
	case "integer":
		var n int64
		if got != "number" || json.Unmarshal(v, &n) != nil {
			return want, false
		}
	default:
		return want, false
	}
	if p.Type == "array" && p.Items != nil && p.Items.Type != "" {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return want, false
		}
		for _, item := range items {
			if _, ok := fits(p.Items, item); !ok {
				return want, false
			}
		}
	}
	return want, true
}

// jsonType is the JSON Schema type name of a JSON value's own kind.
func jsonType(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// typeWords says a schema's type in words, with an example where it helps.
func typeWords(p *jsonschema.Schema) string {
	if p == nil {
		return "a value"
	}
	switch p.Type {
	case "string":
		return "a string"
	case "boolean":
		return "true or false"
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "object":
		return "an object"
	case "array":
		if p.Items != nil && p.Items.Type == "string" {
			return `an array of strings, such as ["a", "b"]`
		}
		return "an array"
	}
	return "a value of the type its schema gives"
}

// describeValue names a JSON value's kind and shows a short value.
func describeValue(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	article := map[string]string{"string": "a string", "object": "an object", "array": "an array",
		"boolean": "a boolean", "null": "null", "number": "a number", "nothing": "nothing"}[jsonType(v)]
	if len(v) > 0 && len(v) <= 40 && jsonType(v) != "null" {
		return article + " (" + string(v) + ")"
	}
	return article
}

// hint says how to turn a value of the wrong type into the right one, for
// the mistakes clients make: a string for an array, a string for a boolean.
func hint(p *jsonschema.Schema, v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	switch {
	case p.Type == "array" && p.Items != nil && p.Items.Type == "string":
		one, _ := json.Marshal([]string{s})
		return fmt.Sprintf("; send %s for one", one)
	case p.Type == "boolean" && (s == "true" || s == "false"):
		return fmt.Sprintf("; send %s without quotes", s)
	}
	return ""
}

// names lists the arguments the tool takes.
func (t toolInput) names() string {
	names := slices.Sorted(maps.Keys(t.schema.Properties))
	if len(names) == 0 {
		return "no arguments"
	}
	return strings.Join(names, ", ")
}

// example is the required arguments of the tool, as the members of an
// example object.
func (t toolInput) example() string {
	var members []string
	for _, name := range t.schema.Required {
		v := `"..."`
		switch t.schema.Properties[name].Type {
		case "array":
			v = `["..."]`
		case "boolean":
			v = "true"
		}
		members = append(members, fmt.Sprintf("%q: %s", name, v))
	}
	return strings.Join(members, ", ")
}

// anyMap decodes each member for the resolved schema's validation, which
// takes Go values as encoding/json makes them.
func anyMap(args map[string]json.RawMessage) map[string]any {
	m := make(map[string]any, len(args))
	for k, v := range args {
		var x any
		_ = json.Unmarshal(v, &x) // each member parsed with the object
		m[k] = x
	}
	return m
}
