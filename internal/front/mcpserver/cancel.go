package mcpserver

import (
	"encoding/json"
	"sync"
	"time"

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
	answered  chan struct{}         // a token when a call is answered (drain)
	undo      map[jsonrpc.ID]func() // what undoes a call's answer, if it is dropped (onDrop)
}

// maxCallsInFlight bounds the calls a client has in flight at once: each
// wait or queued reserve holds a watch, a place in the shared store and,
// while it takes the lock, a thread, so 1,500 of them made the server run
// out of file descriptors and fail every call, and 5,000 waits delayed a
// check by 15 s. An agent has a few in flight; a call past the bound is
// refused (busy) until one is answered. A ping is always answered.
const maxCallsInFlight = 32

// read notes a message the server is about to handle: a call is in
// flight; a cancellation marks the call it names. It returns false for a
// call past maxCallsInFlight, which is refused instead of handled.
func (c *cancelledCalls) read(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		if c.inFlight == nil {
			c.inFlight, c.cancelled, c.undo = map[jsonrpc.ID]string{}, map[jsonrpc.ID]bool{}, map[jsonrpc.ID]func(){}
			c.answered = make(chan struct{}, 1)
		}
		if len(c.inFlight) >= maxCallsInFlight && req.Method != "ping" {
			return false // a ping costs nothing, and a client may drop a server that fails one
		}
		c.inFlight[req.ID] = req.Method
		tagCall(req)
		return true
	}
	if req.Method != "notifications/cancelled" {
		return true
	}
	var params struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &params) != nil {
		return true
	}
	id, err := jsonrpc.MakeID(params.RequestID)
	if err != nil || !id.IsValid() {
		return true
	}
	if method, ok := c.inFlight[id]; ok && method != "initialize" {
		c.cancelled[id] = true
	}
	return true
}

// answers says whether msg goes out: anything but the response to a call
// the client cancelled. A response ends its call's time in flight.
func (c *cancelledCalls) answers(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return true
	}
	c.mu.Lock()
	cancelled, undo := c.cancelled[resp.ID], c.undo[resp.ID]
	c.mu.Unlock()
	if cancelled && undo != nil {
		undo() // while the call is still in flight: drain waits for it
	}
	c.mu.Lock()
	delete(c.inFlight, resp.ID)
	delete(c.cancelled, resp.ID)
	delete(c.undo, resp.ID)
	c.mu.Unlock()
	select {
	case c.answered <- struct{}{}:
	default:
	}
	return !cancelled
}

// callKey is the key of params._meta under which tagCall gives a tool's
// handler the id of its call (the SDK does not), for onDrop.
const callKey = "git-queen/call"

// tagCall sets params._meta[callKey] of a tools/call to its id.
func tagCall(req *jsonrpc.Request) {
	var params map[string]json.RawMessage
	if req.Method != "tools/call" || json.Unmarshal(req.Params, &params) != nil || params == nil {
		return
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil || meta == nil {
		meta = map[string]json.RawMessage{}
	}
	id, _ := json.Marshal(req.ID.Raw())
	meta[callKey] = id
	params["_meta"], _ = json.Marshal(meta)
	if data, err := json.Marshal(params); err == nil {
		req.Params = data
	}
}

// onDrop has undo run if the answer to the call of id (callKey) is
// dropped, the client having cancelled the call: a wait that marked a
// message read unmarks it, for the client never gets the message.
func (c *cancelledCalls) onDrop(callID any, undo func()) {
	id, err := jsonrpc.MakeID(callID)
	if c == nil || err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.inFlight[id]; ok {
		c.undo[id] = undo
	}
}

// eofGrace is how long the server goes on answering the calls in flight
// once its input has ended, before it stops them and exits.
const eofGrace = 10 * time.Second

// drain waits until every call in flight is answered, for at most grace
// (or until the connection closes; a signal ends the server in Main, as
// the SDK's reading context never ends). The end of the input
// ends the server, and the SDK then stops the calls in flight and drops
// their answers: a client that writes its calls and closes its end of
// the pipe (echo ... | git queen mcp) got no answer at all, not even
// initialize's. A wait stops when the input ends (runner.inputEnded),
// and is answered; a call that takes longer than grace is stopped then.
func (c *cancelledCalls) drain(closed <-chan struct{}, grace time.Duration) {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		c.mu.Lock()
		pending, answered := len(c.inFlight), c.answered
		c.mu.Unlock()
		if pending == 0 {
			return
		}
		select {
		case <-answered:
		case <-timer.C:
			return
		case <-closed:
			return
		}
	}
}
