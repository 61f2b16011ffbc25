package st

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// Item statuses of seed 000.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusBlocked    = "blocked"
	StatusDeferred   = "deferred"
	StatusCanceled   = "canceled"
)

// The dep_state values of the read view.
const (
	DepReady         = "ready"
	DepWaiting       = "waiting_on_deps"
	DepBlockedManual = "blocked_manual"
	DepNA            = "n/a"
)

// ViewItem is one item of `st show --format json`: the item's own fields
// plus dep_state and waiting_on.
type ViewItem struct {
	Item
	DepState  string   `json:"dep_state"`
	WaitingOn []string `json:"waiting_on"`
}

// MarshalJSON writes the item's fields (as Item writes them, unknown fields
// included) followed by dep_state and waiting_on.
func (v ViewItem) MarshalJSON() ([]byte, error) {
	return v.Item.marshal([2]any{"dep_state", v.DepState}, [2]any{"waiting_on", jsonline.NonNil(v.WaitingOn)})
}

// Show derives the read view of a plan, in stream order. How dep_state is
// decided, in this order:
//
//   - n/a: the item is finished (completed or canceled); readiness does not
//     apply and waiting_on is empty.
//   - blocked_manual: the item's status is blocked, set by hand, whatever its
//     dependencies say (waiting_on still lists the unresolved ones).
//   - waiting_on_deps: at least one dependency edge of type blocks is
//     unresolved. A dependency is resolved when the item it names is
//     completed or canceled (a canceled step will never finish, so nothing
//     waits for it); one that names no item in the plan is unresolved, so a
//     removed or misspelled dependency shows instead of being ignored. Edges
//     of other types (relates-to, ...) only inform and never make an item wait.
//   - ready: anything else (pending, in_progress or deferred with every
//     blocking dependency resolved).
//
// waiting_on lists the unresolved blocking dependency ids in edge order,
// each once.
func Show(s State) []ViewItem {
	status := make(map[string]string, len(s.Items))
	for _, it := range s.Items {
		status[it.ID] = it.Status
	}
	out := make([]ViewItem, 0, len(s.Items))
	for _, it := range s.Items {
		v := ViewItem{Item: it, WaitingOn: []string{}}
		if finished(it.Status) {
			v.DepState = DepNA
			out = append(out, v)
			continue
		}
		for _, e := range it.Deps {
			if e.Type != DefaultEdgeType {
				continue
			}
			if st, ok := status[e.ID]; ok && finished(st) {
				continue
			}
			if !slices.Contains(v.WaitingOn, e.ID) {
				v.WaitingOn = append(v.WaitingOn, e.ID)
			}
		}
		switch {
		case it.Status == StatusBlocked:
			v.DepState = DepBlockedManual
		case len(v.WaitingOn) > 0:
			v.DepState = DepWaiting
		default:
			v.DepState = DepReady
		}
		out = append(out, v)
	}
	return out
}

func finished(status string) bool { return status == StatusCompleted || status == StatusCanceled }

// PlanStep is one step of the update_plan tool's arguments.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// Plan is the update_plan tool's arguments: {"plan":[...]}.
type Plan struct {
	Plan []PlanStep `json:"plan"`
}

// ToPlan translates the read view to update_plan, keeping its order. The
// guardrail of seed 000: an item waiting on dependencies is never
// in_progress (it becomes pending). A step with no text is named by its id.
func ToPlan(view []ViewItem) Plan {
	p := Plan{Plan: make([]PlanStep, 0, len(view))}
	for _, v := range view {
		// The seed's status mapping: completed and in_progress stay, every
		// other status (and one the seed does not name) is pending, the one
		// status that promises nothing.
		status := "pending"
		if v.Status == StatusCompleted || (v.Status == StatusInProgress && v.DepState != DepWaiting) {
			status = v.Status
		}
		p.Plan = append(p.Plan, PlanStep{Step: cmp.Or(v.Step, v.ID), Status: status})
	}
	return p
}

// MarshalPlan writes a plan as compact JSON without HTML escaping, as the
// tool's arguments are passed.
func MarshalPlan(p Plan) ([]byte, error) { return jsonline.MarshalNoEscape(p) }

var _ json.Marshaler = ViewItem{}

// BlocksCycle returns a cycle of blocks edges in the plan (its item ids,
// the first repeated at the end), or nil: no item of a cycle can ever be
// ready. The writers refuse to close one; a merge of two branches that
// each added one edge can (the merge driver reports it).
func (s *State) BlocksCycle() []string {
	ids := make([]string, len(s.Items))
	for i, it := range s.Items {
		ids[i] = it.ID
	}
	edges := s.blocksEdges()
	return FindCycle(ids, func(id string) []string { return edges[id] })
}

// blocksEdges maps each item of the plan to the ids its blocks edges name.
func (s *State) blocksEdges() map[string][]string {
	edges := make(map[string][]string, len(s.Items))
	for _, it := range s.Items {
		for _, e := range it.Deps {
			if cmp.Or(e.Type, DefaultEdgeType) == DefaultEdgeType {
				edges[it.ID] = append(edges[it.ID], e.ID)
			}
		}
	}
	return edges
}

// FindCycle returns a cycle of a directed graph (its nodes, the first
// repeated at the end), or nil: the first that a depth-first walk from
// each of roots in turn meets, following the edges next gives. A plan's
// blocks edges (BlocksCycle) and a VerMAS template's needs (package
// schema) are such graphs.
func FindCycle[K comparable](roots []K, next func(K) []K) []K {
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[K]int, len(roots))
	var path []K
	var walk func(n K) []K
	walk = func(n K) []K {
		state[n] = onPath
		path = append(path, n)
		for _, m := range next(n) {
			switch state[m] {
			case onPath:
				return append(slices.Clone(path[slices.Index(path, m):]), m)
			case unseen:
				if c := walk(m); c != nil {
					return c
				}
			}
		}
		state[n], path = done, path[:len(path)-1]
		return nil
	}
	for _, r := range roots {
		if state[r] == unseen {
			if c := walk(r); c != nil {
				return c
			}
		}
	}
	return nil
}
