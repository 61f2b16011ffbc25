package mcpserver

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// cancelledCalls keeps the client's calls in flight, so that a call it
// cancels gets no response. The MCP specification says a receiver of
// notifications/cancelled should stop the request and not send a response
// for it; the SDK stops the handler (its context ends) but still sends
// what the handler returns ("context canceled"), so the transport drops it.
// A cancellation of a call already answered, of an unknown id, or of
// initialize (which the specification says clients must not cancel)
// changes nothing. Only calls in flight are kept, so a client cannot grow
// the table by cancelling ids it never sent.
type cancelledCalls struct {
	mu        sync.Mutex
	inFlight  map[jsonrpc.ID]string // call id -> method, until answered
	cancelled map[jsonrpc.ID]bool   // calls in flight the client cancelled
}

// read notes a message the server is about to handle: a call is in
// flight; a cancellation marks the call it names.
func (c *cancelledCalls) read(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		if c.inFlight == nil {
			c.inFlight, c.cancelled = map[jsonrpc.ID]string{}, map[jsonrpc.ID]bool{}
		}
		c.inFlight[req.ID] = req.Method
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	var params struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &params) != nil {
		return
	}
	id, err := jsonrpc.MakeID(params.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	if method, ok := c.inFlight[id]; ok && method != "initialize" {
		c.cancelled[id] = true
	}
}

// answers says whether msg goes out: anything but the response to a call
// the client cancelled. A response ends its call's time in flight.
func (c *cancelledCalls) answers(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cancelled := c.cancelled[resp.ID]
	delete(c.inFlight, resp.ID)
	delete(c.cancelled, resp.ID)
	return !cancelled
}
