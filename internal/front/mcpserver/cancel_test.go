package mcpserver

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The response to a call the client cancelled while it was in flight is
// dropped; every other message goes out: a response to a call answered
// before its cancellation arrived, to an id never cancelled or cancelled
// with the other type, to initialize, and anything that is not a response.
func TestCancelledCalls(t *testing.T) {
	call := func(id, method string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{}}`
	}
	cancel := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"r"}}`
	}
	tests := []struct {
		name   string
		read   []string // frames the server reads, in order
		answer string   // the id of the response then written
		sent   bool
	}{
		{"a cancelled call", []string{call("7", "tools/call"), cancel("7")}, "7", false},
		{"a cancelled call with a string id", []string{call(`"a"`, "tools/call"), cancel(`"a"`)}, `"a"`, false},
		{"no cancellation", []string{call("8", "tools/call")}, "8", true},
		{"another call cancelled", []string{call("9", "tools/call"), call("10", "ping"), cancel("10")}, "9", true},
		{"the id's other type", []string{call("11", "tools/call"), cancel(`"11"`)}, "11", true},
		{"a cancellation before the call", []string{cancel("12"), call("12", "tools/call")}, "12", true},
		{"initialize", []string{call("13", "initialize"), cancel("13")}, "13", true},
		{"a malformed cancellation", []string{call("14", "tools/call"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}}`}, "14", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c cancelledCalls
			for _, f := range tt.read {
				msg, err := jsonrpc.DecodeMessage([]byte(f))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				c.read(msg)
			}
			if got := c.answers(response(t, tt.answer)); got != tt.sent {
				t.Errorf("response %s sent = %v, want %v", tt.answer, got, tt.sent)
			}
			// Answered (or dropped), the call is no longer in flight: the
			// table forgets it, and a later response with its id goes out.
			id := response(t, tt.answer).ID
			if _, ok := c.inFlight[id]; ok || c.cancelled[id] {
				t.Errorf("call %s left behind: in flight %v, cancelled %v", tt.answer, c.inFlight, c.cancelled)
			}
			if !c.answers(response(t, tt.answer)) {
				t.Errorf("a second response %s was dropped", tt.answer)
			}
		})
	}
	// What is not a response always goes out.
	var c cancelledCalls
	note, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !c.answers(note) {
		t.Error("a notification was dropped")
	}
}

func response(t *testing.T, id string) *jsonrpc.Response {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	return msg.(*jsonrpc.Response)
}
