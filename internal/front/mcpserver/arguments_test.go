package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/app"
)

// decode reads arguments that fit the schema into the input struct, and
// refuses each kind of misfit with words that name the argument and what
// to send instead.
func TestDecodeArguments(t *testing.T) {
	reserve := inputSchema[app.ReserveRequest]("reserve")
	cases := []struct {
		name string
		raw  string
		want app.ReserveRequest
		// problems are substrings of the error, one per problem, in order;
		// none for arguments that fit.
		problems []string
	}{
		{name: "all given", raw: `{"patterns":["src/**","docs/"],"ttl":"30m","shared":true,"reason":"r","issue":"bd-1","force":false,"notify":true}`,
			want: app.ReserveRequest{Patterns: []string{"src/**", "docs/"}, TTL: "30m", Shared: true, Reason: "r", Issue: "bd-1", Notify: true}},
		{name: "required only", raw: `{"patterns":["a"]}`, want: app.ReserveRequest{Patterns: []string{"a"}}},
		{name: "an empty array", raw: `{"patterns":[]}`, want: app.ReserveRequest{Patterns: []string{}}},
		{name: "null for an optional argument is not given", raw: `{"patterns":["a"],"ttl":null,"shared":null}`, want: app.ReserveRequest{Patterns: []string{"a"}}},
		{name: "no arguments", raw: ``, problems: []string{`missing argument "patterns" (an array of strings`}},
		{name: "null arguments", raw: `null`, problems: []string{`missing argument "patterns"`}},
		{name: "null for a required argument", raw: `{"patterns":null}`, problems: []string{`missing argument "patterns"`}},
		{name: "an unknown argument", raw: `{"patterns":["a"],"droid":"mallory"}`,
			problems: []string{`unknown argument "droid": reserve takes force, issue, notify, patterns, reason, shared, ttl`}},
		{name: "a string for an array", raw: `{"patterns":"src/**"}`,
			problems: []string{`argument "patterns" must be an array of strings, such as ["a", "b"], not a string ("src/**"); send ["src/**"] for one`}},
		{name: "numbers in the array", raw: `{"patterns":["a",1]}`, problems: []string{`argument "patterns" must be an array of strings`}},
		{name: "a quoted boolean", raw: `{"patterns":["a"],"shared":"true"}`,
			problems: []string{`argument "shared" must be true or false, not a string ("true"); send true without quotes`}},
		{name: "a number for a string", raw: `{"patterns":["a"],"ttl":30}`, problems: []string{`argument "ttl" must be a string, not a number (30)`}},
		{name: "an object for a string", raw: `{"patterns":["a"],"reason":{"x":1}}`, problems: []string{`argument "reason" must be a string, not an object`}},
		{name: "an array for the arguments", raw: `["a"]`,
			problems: []string{`the arguments must be a JSON object such as {"patterns": ["..."]}, not an array`}},
		{name: "a string for the arguments", raw: `"patterns"`, problems: []string{`the arguments must be a JSON object`}},
		{name: "every problem at once", raw: `{"pattern":["a"],"ttl":1,"shared":"yes"}`, problems: []string{
			`unknown argument "pattern"`, `argument "shared" must be true or false, not a string ("yes")`,
			`argument "ttl" must be a string`, `missing argument "patterns"`}},
		{name: "a long value is not quoted", raw: `{"patterns":"` + strings.Repeat("x", 100) + `"}`,
			problems: []string{`not a string; send ["xxxx`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decode[app.ReserveRequest](reserve, json.RawMessage(c.raw))
			if len(c.problems) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Fatalf("got %+v, want %+v", got, c.want)
				}
				return
			}
			var ae *argumentsError
			if !errors.As(err, &ae) {
				t.Fatalf("want an arguments error, got %v (%+v)", err, got)
			}
			if len(ae.problems) != len(c.problems) {
				t.Fatalf("problems %q, want %d like %q", ae.problems, len(c.problems), c.problems)
			}
			for i, p := range c.problems {
				if !strings.Contains(ae.problems[i], p) {
					t.Errorf("problem %d: %q, want it to contain %q", i, ae.problems[i], p)
				}
			}
			if !strings.HasPrefix(err.Error(), "the arguments of reserve do not fit its input schema") {
				t.Errorf("message: %q", err)
			}
		})
	}
}

// A tool without required arguments accepts {} and nothing, and says so
// when it gets something else.
func TestDecodeArgumentsOfAToolWithoutRequiredOnes(t *testing.T) {
	inbox := inputSchema[app.InboxRequest]("inbox")
	for _, raw := range []string{``, `null`, `{}`, ` { } `} {
		if _, err := decode[app.InboxRequest](inbox, json.RawMessage(raw)); err != nil {
			t.Errorf("%q: %v", raw, err)
		}
	}
	_, err := decode[app.InboxRequest](inbox, json.RawMessage(`[]`))
	if err == nil || !strings.Contains(err.Error(), "the arguments must be a JSON object such as {}, not an array") {
		t.Errorf("[]: %v", err)
	}
}

// A call with a great many unknown members, or one with a huge name, gets
// a message of a few short lines.
func TestArgumentsErrorIsBounded(t *testing.T) {
	var raw strings.Builder
	raw.WriteString(`{"` + strings.Repeat("n", 1<<20) + `":1`)
	for i := range 10000 {
		fmt.Fprintf(&raw, `,"x%d":1`, i)
	}
	raw.WriteString("}")
	_, err := decode[app.InboxRequest](inputSchema[app.InboxRequest]("inbox"), json.RawMessage(raw.String()))
	if err == nil || len(err.Error()) > 4000 || !strings.HasSuffix(err.Error(), "and 9991 more") {
		t.Fatalf("%d bytes: %.500s", len(err.Error()), err)
	}
}

// Whatever a client sends as arguments, decode returns an input that
// fits the schema or an arguments error, and never panics.
func FuzzDecodeArguments(f *testing.F) {
	for _, seed := range []string{``, `null`, `{}`, `[]`, `{"patterns":["a"]}`, `{"patterns":"a","ttl":1}`,
		`{"patterns":[null]}`, `{"patterns":["a"],"patterns":2}`, `{"a":{"b":[1,{"c":null}]}}`, `"x"`, `{"patterns":["\u0000"]}`} {
		f.Add([]byte(seed))
	}
	reserve := inputSchema[app.ReserveRequest]("reserve")
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := decode[app.ReserveRequest](reserve, raw)
		var ae *argumentsError
		switch {
		case err == nil && in.Patterns == nil:
			t.Fatalf("%q: accepted without its required patterns", raw)
		case err != nil && !errors.As(err, &ae):
			t.Fatalf("%q: %T %v", raw, err, err)
		}
	})
}
