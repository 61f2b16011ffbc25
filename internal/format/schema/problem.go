package schema

import (
	"fmt"
	"strconv"
)

// Problem is one thing wrong with a file, precise enough to act on: where
// (path, line, field), which rule, and what is wrong in words.
type Problem struct {
	Path string `json:"path"`
	// Line is 1-based; 0 means the file as a whole.
	Line int `json:"line"`
	// Field locates the value inside the record: "subject",
	// "items[2].deps[0].type"; empty for the record or line as a whole.
	Field string `json:"field,omitempty"`
	// Rule names the broken rule. Rules a schema states carry the JSON
	// Schema keyword ("required", "type", "enum", "pattern", "format",
	// "maxLength", "minimum", ...); the rules only git-queen checks have the
	// names listed in Rules.
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// String is the human form: "path:line: field: what is wrong".
func (p Problem) String() string {
	loc := p.Path
	if p.Line > 0 {
		loc += ":" + strconv.Itoa(p.Line)
	}
	if p.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, p.Field, p.Message)
	}
	return fmt.Sprintf("%s: %s", loc, p.Message)
}

// Rules git-queen checks beyond what the schemas say. The value says what
// each one means, for documentation and `git queen schema rules`.
var Rules = map[string]string{
	RuleJSON:           "the line or file is not valid JSON (or TOML for templates)",
	RuleConflictMarker: "a git conflict marker: the file was merged without the queen merge driver",
	RuleDuplicateLine:  "a line repeated byte for byte: the symptom of a union merge",
	RuleDuplicateID:    "an id that must be unique appears twice",
	RuleIntegerLiteral: "an integer written with a fraction or exponent (2.0), which Go readers reject",
	RuleIntegerRange:   "an integer beyond what a Go reader's int64 holds, which it rejects",
	RuleExpiresAfter:   "a reservation's expires_at is not after its created_at",
	RuleTTL:            "a reservation's expires_at is more than 7 days after the version was written (it counts as ending then)",
	RuleWindowOrder:    "an autopilot checkpoint's window_end is before its window_start",
	RuleSelfDependency: "a work order depends on itself",
	RulePipelineKey:    "a pipeline file does not hold exactly one numeric key equal to its file name",
	RuleMisplacedField: "lastActivity or heartbeat_pid inside a pipeline's issue object instead of beside it",
	RuleSeqOrder:       "an st event's seq is not greater than the stream's watermark",
	RuleSeqGap:         "an st event's seq skips numbers (new events take watermark + 1)",
	RuleCheckpointSeq:  "an st checkpoint's seq is not the watermark of the records before it",
	RuleUnknownItem:    "an st event names an item the plan does not have at that point",
	RuleReplayContract: "the latest st checkpoint plus the later events differs from a full replay",
	RuleVersionOrder:   "a record's last line is not its current version (by its timestamps): line-order readers would read a stale state",
	RuleDuplicateStep:  "two steps of a template or process share an id",
	RuleUnknownNeed:    "a template step needs a step that does not exist",
	RuleNeedsCycle:     "template steps need each other in a cycle",
	RuleUnknownFormat:  "a format was asked for by a name no format has",
}

// Names of the rules in Rules.
const (
	RuleJSON           = "syntax"
	RuleConflictMarker = "conflict-marker"
	RuleDuplicateLine  = "duplicate-line"
	RuleDuplicateID    = "duplicate-id"
	RuleVersionOrder   = "version-order"
	RuleIntegerLiteral = "integer-literal"
	RuleIntegerRange   = "integer-range"
	RuleExpiresAfter   = "expires-after-created"
	RuleTTL            = "ttl-too-long"
	RuleWindowOrder    = "window-order"
	RuleSelfDependency = "self-dependency"
	RulePipelineKey    = "pipeline-key"
	RuleMisplacedField = "misplaced-field"
	RuleSeqOrder       = "seq-order"
	RuleSeqGap         = "seq-gap"
	RuleCheckpointSeq  = "checkpoint-seq"
	RuleUnknownItem    = "unknown-item"
	RuleReplayContract = "replay-contract"
	RuleDuplicateStep  = "duplicate-step"
	RuleUnknownNeed    = "unknown-need"
	RuleNeedsCycle     = "needs-cycle"
	RuleUnknownFormat  = "unknown-format"
)

// Result is the outcome of validating one file.
type Result struct {
	Path string `json:"path"`
	// Format is the format the file was validated as; empty when the file
	// has no known format and was skipped.
	Format string `json:"format,omitempty"`
	// Records counts the records (non-blank lines, or 1 for a document).
	Records int `json:"records"`
	// Problems are the first Limit problems in file order.
	Problems []Problem `json:"problems"`
	// Omitted counts the problems beyond the limit.
	Omitted int `json:"omitted,omitempty"`
}

// Valid reports whether the file had no problem.
func (r *Result) Valid() bool { return len(r.Problems) == 0 && r.Omitted == 0 }

// Skipped reports whether the file had no known format.
func (r *Result) Skipped() bool { return r.Format == "" }

// DefaultLimit is how many problems are listed per file unless Options say
// otherwise: enough to see a pattern, few enough to read.
const DefaultLimit = 50

// Options tune ValidateFile. The zero value is ready to use.
type Options struct {
	// Limit is the most problems listed per file: 0 means DefaultLimit, a
	// negative value no limit. Problems beyond it are counted in Omitted.
	Limit int
	// Format forces a format by name instead of asking the registry.
	Format string
	// Registry maps paths to formats; nil means DefaultRegistry().
	Registry *Registry
	// Workers is how many goroutines validate the lines of a large JSONL
	// file; 0 means one per CPU.
	Workers int
}

// MaxProblems is how many problems of one file Limit lets through, for
// callers that list other problems of the same file (the hook's rewritten
// lines) by the same rule.
func (o *Options) MaxProblems() int {
	switch {
	case o.Limit == 0:
		return DefaultLimit
	case o.Limit < 0:
		return int(^uint(0) >> 1)
	}
	return o.Limit
}
