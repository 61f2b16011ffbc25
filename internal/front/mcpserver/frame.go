package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxFrame is the longest line of input, in bytes without its newline, that
// the server reads as one JSON-RPC message; a longer one is refused with an
// error reply once this many bytes have arrived, and the rest of the line
// is read and dropped without being kept. The largest legitimate input is a
// send or reply whose body is at its limit of 256 KiB: a client that
// escapes every byte of it as \u00XX sends 1.5 MiB, and the other fields
// add a few KiB. 4 MiB leaves more than twice that, keeps a hostile or
// broken client from making the server hold more than that at once, and is
// a quarter of the SDK's own 16 MiB bound (which, when exceeded, ends the
// connection instead).
const MaxFrame = 4 << 20

// maxSafeID is the largest magnitude of a numeric id the SDK keeps exactly:
// it reads ids as float64 and turns them into int64, so 1.5 would be
// answered as 1, 9007199254740993 as 9007199254740992 and 1e30 as
// -9223372036854775808. A numeric id is therefore read only when it is
// written as an integer within this bound, and answered as written.
const maxSafeID = 1 << 53

// refusal is the error reply to a frame that is not a JSON-RPC message the
// SDK may be given: a parse error (-32700) or an invalid request (-32600),
// with the frame's id when it could be read and null when not, as the
// JSON-RPC 2.0 specification says.
type refusal struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   refusalError    `json:"error"`
}

type refusalError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var nullID = json.RawMessage("null")

func refuse(code int, id json.RawMessage, format string, args ...any) *refusal {
	return &refusal{Version: "2.0", ID: id, Error: refusalError{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// tooLarge is the refusal of a frame longer than MaxFrame: its id is never
// read, since reading it would mean keeping the frame.
func tooLarge() *refusal {
	return refuse(jsonrpc.CodeInvalidRequest, nullID,
		"refused a message of more than %d bytes (one line of input): the server reads at most that much per message; "+
			"send a smaller one", MaxFrame)
}

// busy is the refusal of a call past maxCallsInFlight, with its id.
func busy(id jsonrpc.ID) *refusal {
	raw, err := json.Marshal(id.Raw())
	if err != nil {
		raw = nullID
	}
	return refuse(codeBusy, raw, "refused: this client has %d calls in flight, as many as the server takes at once; "+
		"wait for their answers (or cancel one) and call again", maxCallsInFlight)
}

// codeBusy is busy's error code, of those JSON-RPC leaves to servers.
const codeBusy = -32000

// checkFrame reads one line of input (without its newline) as a JSON-RPC
// message for the SDK. It returns the message, or the refusal to answer
// instead, or neither for a blank line, which is skipped.
func checkFrame(frame []byte) (jsonrpc.Message, *refusal) {
	frame = bytes.TrimSuffix(frame, []byte("\r"))
	trimmed := bytes.TrimLeft(frame, " \t\r")
	if len(trimmed) == 0 {
		return nil, nil
	}
	if !utf8.Valid(frame) {
		return nil, refuse(jsonrpc.CodeParseError, nullID, "parse error: the message is not valid UTF-8")
	}
	if !json.Valid(frame) {
		return nil, refuse(jsonrpc.CodeParseError, nullID, "parse error: the line is not one JSON value; send one JSON-RPC message per line")
	}
	switch trimmed[0] {
	case '[':
		return nil, refuse(jsonrpc.CodeInvalidRequest, nullID,
			"invalid request: batches are not part of MCP since its revision 2025-06-18; send one message per line")
	case '{':
	default:
		return nil, refuse(jsonrpc.CodeInvalidRequest, nullID, "invalid request: a JSON-RPC message is an object")
	}
	fields, err := readMembers(frame)
	if err != nil {
		return nil, refuse(jsonrpc.CodeInvalidRequest, nullID, "invalid request: %s", clip(err.Error(), 200))
	}
	id, problem := readID(fields.id)
	if problem != "" {
		return nil, refuse(jsonrpc.CodeInvalidRequest, id, "invalid request: %s", problem)
	}
	var version string
	if json.Unmarshal(fields.version, &version) != nil || version != "2.0" {
		return nil, refuse(jsonrpc.CodeInvalidRequest, id, `invalid request: a JSON-RPC 2.0 message has "jsonrpc": "2.0"`)
	}
	if m := fields.method; m != nil && m[0] != '"' {
		return nil, refuse(jsonrpc.CodeInvalidRequest, id, "invalid request: the method is not a string")
	}
	msg, err := jsonrpc.DecodeMessage(frame)
	if err != nil {
		return nil, refuse(jsonrpc.CodeInvalidRequest, id, "invalid request: %s", clip(err.Error(), 200))
	}
	return msg, nil
}

// members are the members of a message that checkFrame reads.
type members struct{ version, id, method json.RawMessage }

// readMembers reads the members jsonrpc, id and method of the JSON object
// frame as the SDK reads them, by their exact names, and skips the others
// without keeping them (a map of them all would cost 50 MB for a frame of
// 300,000 members). A name given twice is refused: which one counts would
// depend on the reader, and the id checked must be the id answered.
func readMembers(frame []byte) (members, error) {
	var m members
	d := json.NewDecoder(bytes.NewReader(frame))
	if _, err := d.Token(); err != nil {
		return m, err
	}
	for d.More() {
		name, err := d.Token()
		if err != nil {
			return m, err
		}
		var value json.RawMessage
		if err := d.Decode(&value); err != nil {
			return m, err
		}
		var slot *json.RawMessage
		switch name {
		case "jsonrpc":
			slot = &m.version
		case "id":
			slot = &m.id
		case "method":
			slot = &m.method
		default:
			continue
		}
		if *slot != nil {
			return m, fmt.Errorf("the member %q is given twice", name)
		}
		*slot = value
	}
	return m, nil
}

// readID returns the id to answer a frame with: the frame's own when it is
// a string or a number, null when it is absent or of another type, and
// what is wrong with it, if anything.
func readID(raw json.RawMessage) (json.RawMessage, string) {
	if len(raw) == 0 || bytes.Equal(raw, nullID) {
		return nullID, ""
	}
	switch c := raw[0]; {
	case c == '"':
		return raw, ""
	case c == '-' || c >= '0' && c <= '9':
		v, err := strconv.ParseInt(string(raw), 10, 64)
		if err == nil && v <= maxSafeID && v >= -maxSafeID {
			return raw, ""
		}
		const problem = "the id must be a string or an integer (digits, no fraction or exponent) between -2^53 and 2^53"
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
			return nullID, problem // beyond float64: a client could not read it back
		}
		return raw, problem
	}
	return nullID, "the id must be a string or a number"
}

// clip shortens an error that may quote the input to n bytes or so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
