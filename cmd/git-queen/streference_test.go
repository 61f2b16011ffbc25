package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// referenceReplay is seed 000's replay written from the seed's text alone,
// with no code of internal/format/st, so the end-to-end tests compare the
// implementation against the specification rather than against itself:
//
//   - every line is one v3 record: v 3, ts, seq, lane event or checkpoint;
//   - events change the materialised items: init, replace (replace_all)
//     resets them to items, upsert (upsert_item) creates or updates one
//     item from item, set_status, set_deps, set_notes, add_comment and
//     remove change the item id names;
//   - an item's deps is an array of edges {id, type}, a missing or empty
//     type meaning blocks; notes defaults to "" and comments to [];
//   - the replay contract: the latest checkpoint plus the records with a
//     greater seq equals the full replay.
//
// It returns the full replay and the checkpoint replay, each as items in
// stream order, normalised to the seed's six fields.
func referenceReplay(stream []byte) (full, fromCheckpoint []refItem, err error) {
	var recs []map[string]json.RawMessage
	for i, line := range bytes.Split(stream, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r map[string]json.RawMessage
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		if string(r["v"]) != "3" || r["ts"] == nil || r["seq"] == nil {
			return nil, nil, fmt.Errorf("line %d is not a v3 record: %s", i+1, line)
		}
		lane := str(r["lane"])
		if lane != "event" && lane != "checkpoint" || lane == "event" && r["op"] == nil || lane == "checkpoint" && r["items"] == nil {
			return nil, nil, fmt.Errorf("line %d: bad lane: %s", i+1, line)
		}
		recs = append(recs, r)
	}
	seq := func(r map[string]json.RawMessage) int64 {
		var n int64
		_ = json.Unmarshal(r["seq"], &n)
		return n
	}
	// Full replay: every event in stream order (from a leading checkpoint
	// when the history before it was compacted away).
	var state []refItem
	started := false
	for _, r := range recs {
		if str(r["lane"]) == "checkpoint" {
			if !started {
				state = refItems(r["items"])
			}
			continue
		}
		started = true
		state = refApply(state, r)
	}
	full = state
	// Checkpoint replay: the latest checkpoint, then events above its seq.
	latest := -1
	for i, r := range recs {
		if str(r["lane"]) == "checkpoint" && (latest < 0 || seq(r) >= seq(recs[latest])) {
			latest = i
		}
	}
	if latest < 0 {
		return full, full, nil
	}
	state = refItems(recs[latest]["items"])
	for _, r := range recs {
		if str(r["lane"]) == "event" && seq(r) > seq(recs[latest]) {
			state = refApply(state, r)
		}
	}
	return full, state, nil
}

// refItem is an item as the seed shapes it.
type refItem struct {
	ID       string       `json:"id"`
	Step     string       `json:"step"`
	Status   string       `json:"status"`
	Deps     []refEdge    `json:"deps"`
	Notes    string       `json:"notes"`
	Comments []refComment `json:"comments"`
}

type refEdge struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

type refComment struct {
	TS     string `json:"ts"`
	Author string `json:"author"`
	Text   string `json:"text"`
}

func refApply(items []refItem, r map[string]json.RawMessage) []refItem {
	id := str(r["id"])
	at := slices.IndexFunc(items, func(it refItem) bool { return it.ID == id })
	switch str(r["op"]) {
	case "init":
		items = nil
		if r["items"] != nil {
			items = refItems(r["items"])
		}
	case "replace", "replace_all":
		items = refItems(r["items"])
	case "upsert", "upsert_item":
		it := refItemOf(r["item"])
		if i := slices.IndexFunc(items, func(x refItem) bool { return x.ID == it.ID }); i >= 0 {
			items[i] = it
		} else {
			items = append(items, it)
		}
	case "set_status":
		if at >= 0 {
			items[at].Status = str(r["status"])
		}
	case "set_deps":
		if at >= 0 {
			items[at].Deps = refEdges(r["deps"])
		}
	case "set_notes":
		if at >= 0 {
			items[at].Notes = str(r["notes"])
		}
	case "add_comment":
		if at >= 0 {
			var c refComment
			_ = json.Unmarshal(r["comment"], &c)
			items[at].Comments = append(slices.Clone(items[at].Comments), c)
		}
	case "remove":
		if at >= 0 {
			items = slices.Delete(items, at, at+1)
		}
	}
	return items
}

func refItems(raw json.RawMessage) []refItem {
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	out := []refItem{}
	for _, r := range list {
		out = append(out, refItemOf(r))
	}
	return out
}

func refItemOf(raw json.RawMessage) refItem {
	var f map[string]json.RawMessage
	_ = json.Unmarshal(raw, &f)
	it := refItem{ID: str(f["id"]), Step: str(f["step"]), Status: str(f["status"]), Notes: str(f["notes"]),
		Deps: refEdges(f["deps"]), Comments: []refComment{}}
	if f["comments"] != nil {
		_ = json.Unmarshal(f["comments"], &it.Comments)
	}
	return it
}

func refEdges(raw json.RawMessage) []refEdge {
	var edges []refEdge
	_ = json.Unmarshal(raw, &edges)
	out := []refEdge{}
	for _, e := range edges {
		if strings.TrimSpace(e.Type) == "" {
			e.Type = "blocks"
		}
		out = append(out, e)
	}
	return out
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
