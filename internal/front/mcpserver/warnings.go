package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// maxWarnings bounds the warnings one result carries; the rest are
// counted in the last.
const maxWarnings = 10

// warnings collects what a use case tells a person on the command line's
// stderr (a write done here but not published, a torn tail repaired, a
// place in the queue that stays), which a tool has no stderr for: the
// result carries it, so that the agent is told. QUEEN_TRACE's timings go
// to the server's stderr, where its operator looks. A use case may write
// from two goroutines at once (a presence note beside a wait), so the
// lines are kept under mu.
type warnings struct {
	mu      sync.Mutex
	lines   []string
	dropped int
	partial bytes.Buffer
	trace   io.Writer
}

func (w *warnings) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial.Write(p)
	for {
		line, err := w.partial.ReadString('\n')
		if err != nil { // no line end yet: kept for the next write
			w.partial.WriteString(line)
			return len(p), nil
		}
		w.add(strings.TrimSuffix(line, "\n"))
	}
}

// add keeps one line, without git-queen's prefix.
func (w *warnings) add(line string) {
	if strings.HasPrefix(line, "git-queen: trace:") {
		fmt.Fprintln(w.trace, line)
		return
	}
	line = strings.TrimPrefix(strings.TrimPrefix(line, "git-queen: "), "warning: ")
	if len(w.lines) == maxWarnings {
		w.dropped++
		return
	}
	w.lines = append(w.lines, line)
}

// list is the warnings, with the count of those left out.
func (w *warnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.partial.Len() > 0 {
		w.add(w.partial.String())
		w.partial.Reset()
	}
	if w.dropped > 0 {
		return append(w.lines, fmt.Sprintf("and %d more warnings", w.dropped))
	}
	return w.lines
}

// withWarnings is the JSON object data with a "warnings" member listing
// lines, after its own members; data as it is when there are none or it
// is no object. A line one of data's own members says already (assign's
// warning) is left out.
func withWarnings(data json.RawMessage, lines []string) json.RawMessage {
	data = bytes.TrimSpace(data)
	if len(lines) == 0 || len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		return data
	}
	lines = notSaid(data, lines)
	if len(lines) == 0 {
		return data
	}
	list, err := json.MarshalIndent(lines, "  ", "  ")
	if err != nil {
		return data
	}
	out := bytes.Clone(bytes.TrimRight(data[:len(data)-1], " \t\r\n"))
	if out[len(out)-1] != '{' {
		out = append(out, ',')
	}
	out = append(out, "\n  \"warnings\": "...)
	out = append(out, list...)
	return append(out, "\n}"...)
}

// notSaid is lines without those that are the string value of one of the
// object data's own members, kept in lines' own array.
func notSaid(data json.RawMessage, lines []string) []string {
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return lines
	}
	said := map[string]bool{}
	for _, v := range members {
		var s string
		if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
			said[s] = true
		}
	}
	return slices.DeleteFunc(lines, func(line string) bool { return said[line] })
}
