package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport is the server's stdio transport: newline-delimited JSON-RPC,
// as the SDK's StdioTransport speaks it, except that the input cannot end
// the server. The SDK's transport decodes a stream of JSON values and ends
// the connection, and with it the program, at the first one it cannot use
// (a batch after initialize, a missing "jsonrpc", a NUL byte, a frame over
// its 16 MiB bound). This one reads a line at a time, at most MaxFrame
// bytes of it, answers a line that is not a JSON-RPC message with an error
// reply itself (checkFrame), and goes on to the next line.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	// ended, when set, is closed when the input ends: the calls that
	// wait stop then (runner.inputEnded).
	ended chan struct{}
	// calls, when set, is the table of calls in flight, shared with the
	// runner so that a call can say what undoes its answer (onDrop).
	calls *cancelledCalls
}

// Connect starts reading lines; each reaches the SDK through Read.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, lines: make(chan line), closed: make(chan struct{}), ended: t.ended, calls: t.calls}
	if c.calls == nil {
		c.calls = &cancelledCalls{}
	}
	go c.readLines(t.in)
	return c, nil
}

// line is one line of input, or the news that it was too long, or the
// error that ended the input.
type line struct {
	frame    []byte
	tooLarge bool
	err      error
}

// lineConn is the connection lineTransport makes.
type lineConn struct {
	writeMu sync.Mutex // one message at a time on out
	out     io.Writer

	lines     chan line
	closeOnce sync.Once
	closed    chan struct{}
	ended     chan struct{} // lineTransport.ended

	calls *cancelledCalls
}

// readLines sends each line of in to c.lines until in ends or c closes. A
// line that grows past MaxFrame is sent as tooLarge as soon as a read
// brings its excess (so the refusal goes out while the client is still
// writing it) and the rest of it is read and dropped. A last line without
// a newline counts as a line.
func (c *lineConn) readLines(in io.Reader) {
	buf := make([]byte, 64<<10)
	var frame []byte
	dropping := false
	for {
		n, err := in.Read(buf)
		for data := buf[:n]; len(data) > 0; {
			part, rest, ended := bytes.Cut(data, []byte("\n"))
			data = rest
			switch {
			case dropping:
			case len(frame)+len(part) > MaxFrame:
				frame, dropping = nil, true
				if !c.send(line{tooLarge: true}) {
					return
				}
			default:
				frame = append(frame, part...)
			}
			if ended {
				if !dropping && !c.send(line{frame: frame}) {
					return
				}
				frame, dropping = nil, false
			}
		}
		if err != nil {
			if !dropping && len(frame) > 0 && !c.send(line{frame: frame}) {
				return
			}
			c.send(line{err: err})
			return
		}
	}
}

// send hands l to Read, unless the connection closes first.
func (c *lineConn) send(l line) bool {
	select {
	case c.lines <- l:
		return true
	case <-c.closed:
		return false
	}
}

// Read returns the next line that is a JSON-RPC message, answering each
// line before it that is not.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			if c.ended != nil {
				close(c.ended)
			}
			c.calls.drain(c.closed, eofGrace)
			return nil, l.err
		}
		var msg jsonrpc.Message
		var no *refusal
		if l.tooLarge {
			no = tooLarge()
		} else {
			msg, no = checkFrame(l.frame)
		}
		if msg != nil {
			if c.calls.read(msg) {
				return msg, nil
			}
			no = busy(msg.(*jsonrpc.Request).ID)
		}
		if no == nil {
			continue
		}
		data, err := json.Marshal(no)
		if err != nil {
			return nil, err
		}
		if err := c.write(data); err != nil {
			return nil, err
		}
	}
}

// Write sends msg on a line of its own; the response to a call the client
// cancelled is dropped.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !c.calls.answers(msg) {
		return nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.write(data)
}

func (c *lineConn) write(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close stops Read. The goroutine reading the input ends when its next
// line arrives or the input ends: standard input cannot be interrupted.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: a stdio connection is one session.
func (c *lineConn) SessionID() string { return "" }
