package schema

import (
	"slices"

	"github.com/git-queen/git-queen/internal/format/records"
)

// Kind is how a file is split into records.
type Kind string

// The kinds of file the seeds use.
const (
	// JSONL files hold one record per line.
	JSONL Kind = "jsonl"
	// JSON files are one document.
	JSON Kind = "json"
	// TOML files are one document, checked as its JSON equivalent.
	TOML Kind = "toml"
	// Text files are one string, checked as a JSON string.
	Text Kind = "text"
)

// Format is one kind of file of one seed system: how to split it into
// records, the schema each record must satisfy, and the rules beyond it.
type Format struct {
	// Name is what configuration and --format use ("queen-message").
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Schema is the embedded schema each record is checked against; empty
	// for the generic formats that only check syntax.
	Schema string `json:"schema,omitempty"`
	// Seed says where the format is specified.
	Seed string `json:"seed"`
	// Doc says where the files live and what is checked beyond the schema.
	Doc string `json:"doc"`

	// fast is a hand-written validator that gives the schema's answers for
	// one JSONL record; nil means the record goes through the JSON Schema.
	fast func(c *checker, raw []byte)
	// extra checks one decoded record (or document) beyond its schema.
	extra func(c *checker, doc any, path string)
	// unique names a top-level field whose value must not repeat.
	unique string
	// whole checks rules that span the records of a file (st streams).
	whole func(c *checker, data []byte)
	// dupLines reports lines repeated byte for byte.
	dupLines bool
	// versioned marks a QueenBee store, whose rule across lines is the
	// version order (versionOrder), which ValidateAppend checks
	// incrementally.
	versioned bool
}

// formats is every format git-queen knows, in the order `schema list`
// prints them.
var formats = []*Format{
	{Name: "queen-message", Kind: JSONL, Schema: "queen-message", Seed: "002", versioned: true, fast: messageSpec.run, dupLines: true,
		Doc: ".beads/" + records.MessagesFile + " and its archive; a hand-written validator, conformance-tested against the schema; also each id's last line its current version"},
	{Name: "queen-assignment", Kind: JSONL, Schema: "queen-assignment", Seed: "002", versioned: true, fast: assignmentSpec.run, dupLines: true,
		Doc: ".beads/" + records.AssignmentsFile + "; a hand-written validator, conformance-tested against the schema; also each id's last line its current version"},
	{Name: "queen-reservation", Kind: JSONL, Schema: "queen-reservation", Seed: "002", versioned: true, fast: reservationSpec.run, dupLines: true,
		Doc: ".beads/" + records.ReservationsFile + "; also expires_at after created_at, and each id's last line its current version"},
	{Name: "beads-issue", Kind: JSONL, Schema: "beads-issue", Seed: "002", fast: beadsSpec.run, dupLines: true, unique: "id",
		Doc: ".beads/issues.jsonl (and legacy beads.jsonl): a snapshot, so each id once"},
	{Name: "st", Kind: JSONL, Schema: "st-record", Seed: "000", whole: checkStStream, dupLines: true,
		Doc: "st v3 streams, recognised by content (\"v\":3 and a lane); also the seq watermark rules and the replay contract"},
	{Name: "jkz-pipeline", Kind: JSON, Schema: "jkz-pipeline", Seed: "001", extra: checkPipelineKey,
		Doc: "state/pipeline/<N>.json; also exactly one numeric key, equal to N, with lastActivity and heartbeat_pid beside it"},
	{Name: "autopilot-event", Kind: JSONL, Schema: "autopilot-event", Seed: "003", dupLines: true,
		Doc: ".openclaw-autopilot/events/events.jsonl"},
	{Name: "autopilot-checkpoint", Kind: JSONL, Schema: "autopilot-checkpoint", Seed: "003", dupLines: true, extra: checkWindow,
		Doc: ".openclaw-autopilot/events/checkpoints.jsonl; also window_end not before window_start"},
	{Name: "vermas-event", Kind: JSONL, Schema: "vermas-event", Seed: "004", dupLines: true, unique: "event_id",
		Doc: ".work/events.jsonl; also each event_id once"},
	{Name: "vermas-work-order", Kind: JSONL, Schema: "vermas-work-order", Seed: "004", dupLines: true, extra: checkSelfDependency, unique: "id",
		Doc: ".work/work_orders.jsonl: a projection, so each id once; also no work order depends on itself"},
	{Name: "vermas-message", Kind: JSONL, Schema: "vermas-message", Seed: "004", dupLines: true, unique: "id",
		Doc: ".work/messages.jsonl: a projection, so each id once"},
	{Name: "vermas-route", Kind: JSONL, Schema: "vermas-route", Seed: "004", dupLines: true, unique: "prefix",
		Doc: ".work/routes.jsonl; also each prefix routed once"},
	{Name: "vermas-assignment", Kind: Text, Schema: "vermas-assignment", Seed: "004",
		Doc: ".work/.assignment-<agent>: one line {type}:{reference_id}"},
	{Name: "vermas-template", Kind: TOML, Schema: "vermas-template", Seed: "004", extra: checkTemplateSteps,
		Doc: ".work/templates/*.toml; also unique step ids, needs that exist, no cycles"},
	{Name: "vermas-process", Kind: JSON, Schema: "vermas-process", Seed: "004", extra: checkProcessSteps,
		Doc: ".work/processes/*.json; also unique step ids"},
	{Name: "jsonl", Kind: JSONL, Seed: "-",
		Doc: "any other JSON Lines file under a seed directory (.work/feed.jsonl): one JSON value per line, no conflict markers"},
	{Name: "json", Kind: JSON, Seed: "-",
		Doc: "any other JSON file under a seed directory (.work/evidence/*.json): one JSON document"},
}

// Formats lists every known format.
func Formats() []*Format { return slices.Clone(formats) }

// Lookup returns the format with the given name.
func Lookup(name string) (*Format, bool) {
	i := slices.IndexFunc(formats, func(f *Format) bool { return f.Name == name })
	if i < 0 {
		return nil, false
	}
	return formats[i], true
}
