package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/git-queen/git-queen/internal/format/records"
)

// What a call returns is bounded in bytes as well as in rows: every byte
// of a result goes into the agent's context.

// maxListingBytes bounds the messages inbox and thread return, and the
// copies a send lists, as the limit bounds their number: a message may
// hold 240 KB, and 50 of them made one inbox call answer 12 MB, all of it
// in the agent's context (a send to 60 droids, 12.3 MB).
const maxListingBytes = 1 << 20

// keepWithinBytes keeps the messages of *list, from its start (or,
// newestLast, from its end), whose JSON fits in maxListingBytes, and at
// least one; it adds how many it left out to *more.
func keepWithinBytes(list *[]records.Message, more *int, newestLast bool) {
	all, total, kept := *list, 0, 0
	for kept < len(all) {
		i := kept
		if newestLast {
			i = len(all) - 1 - kept
		}
		data, _ := json.Marshal(all[i])
		if total += len(data); total > maxListingBytes && kept > 0 {
			break
		}
		kept++
	}
	if newestLast {
		*list = all[len(all)-kept:]
	} else {
		*list = all[:kept]
	}
	*more += len(all) - kept
}

// maxListedProblems is how many of the lines its store could not read a
// result lists: a listing costs what it returns, and a store of 50,000
// broken lines made an inbox of 50 messages answer 7 MB.
const maxListedProblems = 20

// boundProblems keeps the first maxListedProblems of the "problems" of a
// result (a JSON object) and says how many more there were in
// "problems_more", beside them; the other members stay as they were, in
// their order. Anything else is returned as it is.
func boundProblems(data json.RawMessage) json.RawMessage {
	type member struct {
		name  string
		value json.RawMessage
	}
	var members []member
	d := json.NewDecoder(bytes.NewReader(data))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return data
	}
	cut := false
	for d.More() {
		name, err := d.Token()
		var value json.RawMessage
		if err != nil || d.Decode(&value) != nil {
			return data
		}
		members = append(members, member{name.(string), value})
		var problems []json.RawMessage
		if name == "problems" && json.Unmarshal(value, &problems) == nil && len(problems) > maxListedProblems {
			var kept bytes.Buffer
			enc := json.NewEncoder(&kept)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(problems[:maxListedProblems]) // raw JSON just read
			members[len(members)-1].value = bytes.TrimSpace(kept.Bytes())
			members = append(members, member{"problems_more", json.RawMessage(fmt.Sprint(len(problems) - maxListedProblems))})
			cut = true
		}
	}
	if !cut {
		return data
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if json.Indent(&out, b.Bytes(), "", "  ") != nil {
		return data
	}
	return out.Bytes()
}
