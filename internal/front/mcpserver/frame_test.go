package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// checkFrame passes what the SDK can serve, answers the rest with the
// JSON-RPC 2.0 error and id the specification asks for, and skips blank
// lines.
func TestCheckFrame(t *testing.T) {
	for _, c := range []struct {
		name, frame string
		code        int    // 0: passed to the SDK; 1: skipped
		id          string // the refusal's id
	}{
		{"a request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, ""},
		{"a string id", `{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}`, 0, ""},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{"a response", `{"jsonrpc":"2.0","id":3,"result":{}}`, 0, ""},
		{"CRLF", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r", 0, ""},
		{"the largest safe id", `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, 0, ""},
		{"an escaped version", `{"jsonrpc":"2\u002e0","id":1,"method":"ping"}`, 0, ""},
		{"an escaped name", `{"jsonrpc":"2.0","\u0069d":2,"method":"ping"}`, 0, ""},
		{"a name in other case, which the SDK ignores", `{"jsonrpc":"2.0","ID":1e30,"id":3,"method":"ping"}`, 0, ""},
		{"empty", "", 1, ""},
		{"blanks", " \t\r", 1, ""},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, "null"},
		{"a number", `7`, -32600, "null"},
		{"not JSON", `{jsonrpc}`, -32700, "null"},
		{"a NUL", "{\"jsonrpc\":\"2.0\",\x00\"id\":1}", -32700, "null"},
		{"not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"method\":\"ping\"}", -32700, "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"ping"}x`, -32700, "null"},
		{"no jsonrpc", `{"id":4,"method":"ping"}`, -32600, "4"},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":"q","method":"ping"}`, -32600, `"q"`},
		{"a fractional id", `{"jsonrpc":"2.0","id":0.5,"method":"ping"}`, -32600, "0.5"},
		{"an id past 2^53", `{"jsonrpc":"2.0","id":-9007199254740993,"method":"ping"}`, -32600, "-9007199254740993"},
		{"an id in exponent form", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, -32600, "1e3"},
		{"an id with a fraction of zero", `{"jsonrpc":"2.0","id":2.0,"method":"ping"}`, -32600, "2.0"},
		{"an array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
		{"a null method", `{"jsonrpc":"2.0","id":5,"method":null}`, -32600, "5"},
		{"an id given twice", `{"jsonrpc":"2.0","id":1,"id":1e30,"method":"ping"}`, -32600, "null"},
		{"a method given twice", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}`, -32600, "null"},
		{"a response without an id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
		{"nested past the SDK's depth", `{"jsonrpc":"2.0","id":6,"method":"ping","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, -32600, "6"},
	} {
		msg, no := checkFrame([]byte(c.frame))
		switch {
		case c.code == 0 && (msg == nil || no != nil):
			t.Errorf("%s: not passed: %+v", c.name, no)
		case c.code == 1 && (msg != nil || no != nil):
			t.Errorf("%s: not skipped: %v %+v", c.name, msg, no)
		case c.code < 0 && (msg != nil || no == nil || no.Error.Code != c.code || string(no.ID) != c.id || no.Error.Message == ""):
			t.Errorf("%s: got %v %+v, want error %d with id %s", c.name, msg, no, c.code, c.id)
		}
		if no != nil {
			if b, err := json.Marshal(no); err != nil || !json.Valid(b) || strings.Contains(string(b), "\n") {
				t.Errorf("%s: the refusal encodes as %q, %v", c.name, b, err)
			}
		}
	}
	if no := tooLarge(); no.Error.Code != jsonrpc.CodeInvalidRequest || string(no.ID) != "null" {
		t.Errorf("tooLarge: %+v", no)
	}
}

// Whatever a line holds, checkFrame neither panics nor passes the SDK a
// message it would answer under another id, and its refusal is one line
// of JSON with an id that is null, a string or an integer.
func FuzzCheckFrame(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
		`[1,2,3]`, "{\"jsonrpc\":\"2.0\",\x00}", `{"jsonrpc":"2.0","id":-0,"method":"x"}`, `{"id":1e400}`,
		`{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}`, " \r", "\xff",
		`{"jsonrpc":"2.0","Id":1e30,"\u0069d":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, no := checkFrame(frame)
		if msg != nil && no != nil {
			t.Fatalf("both a message and a refusal")
		}
		if no != nil {
			b, err := json.Marshal(no)
			if err != nil || strings.ContainsAny(string(b), "\n\r") {
				t.Fatalf("the refusal encodes as %q, %v", b, err)
			}
			var back struct{ ID any }
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("the refusal %s: %v", b, err)
			}
			switch back.ID.(type) {
			case nil, string, float64:
			default:
				t.Fatalf("the refusal's id %s", no.ID)
			}
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.ID.IsValid() {
			return
		}
		var sent map[string]any // by exact name, as the SDK reads it
		d := json.NewDecoder(strings.NewReader(string(frame)))
		d.UseNumber()
		if err := d.Decode(&sent); err != nil {
			t.Fatalf("passed %q, which encoding/json cannot read: %v", frame, err)
		}
		switch id := sent["id"].(type) {
		case json.Number:
			if n, err := id.Int64(); err != nil || req.ID.Raw() != n {
				t.Fatalf("id %s answered as %v", id, req.ID.Raw())
			}
		case string:
			if req.ID.Raw() != id {
				t.Fatalf("id %q answered as %q", id, req.ID.Raw())
			}
		default:
			t.Fatalf("id %v of type %T passed", id, id)
		}
	})
}
