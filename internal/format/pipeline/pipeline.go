// Package pipeline reads the jkz pipeline state of seed 001
// (state/pipeline/<N>.json) the way jkz's UI server does: the issue's data
// under its numeric key, every scalar a string on disk, coerced on read by
// the rules of normalizePipelineState. It exists so `git queen pipeline
// show` gives droids the same typed view the jkz UI shows.
package pipeline

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-queen/git-queen/internal/base/regular"
)

// Dir is where pipeline state lives, relative to the top of the repository.
const Dir = "state/pipeline"

// Issue is the normalised view of one pipeline file. Coercions (seed 001):
//
//	current_phase  string, "unknown" when missing or empty
//	active_agent   string or null; an empty string is null
//	issue_type     string, "feature" when missing or empty
//	pr_number      number or null: JavaScript parseInt of the string (leading
//	               digits, optional sign), null when that is NaN
//	started_at     string or null, passed through
//	last_updated   string or null: last_updated, else the top-level lastActivity
//	verdict        "PASS" when review_passed and qa_passed are both "true",
//	               "FAIL" when either is "false", else null
//	branch         always null, reserved by the seed
//
// verdict and branch are conveniences of the view, not stored fields.
type Issue struct {
	Number       int     `json:"number"`
	CurrentPhase string  `json:"current_phase"`
	ActiveAgent  *string `json:"active_agent"`
	IssueType    string  `json:"issue_type"`
	PRNumber     *int64  `json:"pr_number"`
	StartedAt    *string `json:"started_at"`
	LastUpdated  *string `json:"last_updated"`
	Verdict      *string `json:"verdict"`
	Branch       *string `json:"branch"`
}

// IsIssueKey reports whether k is an issue number (ASCII digits), the
// name of a pipeline file and the key its data sits under.
func IsIssueKey(k string) bool { return k != "" && strings.Trim(k, "0123456789") == "" }

// Normalize builds the view of a pipeline file's bytes. n is the issue
// number from the file name; the data is read under the key n (or, when
// that key is missing, under the file's only numeric key).
func Normalize(n int, data []byte) (Issue, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Issue{}, fmt.Errorf("not a JSON object: %w", err)
	}
	raw, ok := top[strconv.Itoa(n)]
	if !ok {
		keys := slices.DeleteFunc(slices.Collect(maps.Keys(top)), func(k string) bool { return !IsIssueKey(k) })
		if len(keys) != 1 {
			return Issue{}, fmt.Errorf("no issue data under the key %q", strconv.Itoa(n))
		}
		raw = top[keys[0]]
	}
	var inner map[string]any
	if err := json.Unmarshal(raw, &inner); err != nil || inner == nil {
		return Issue{}, fmt.Errorf("the issue data under %q is not an object", strconv.Itoa(n))
	}
	str := func(k string) string {
		s, _ := inner[k].(string)
		return s
	}
	is := Issue{Number: n, CurrentPhase: cmp.Or(str("current_phase"), "unknown"), IssueType: cmp.Or(str("issue_type"), "feature"),
		PRNumber: parseInt(inner["pr_number"])}
	if s := str("active_agent"); s != "" {
		is.ActiveAgent = &s
	}
	if s, ok := inner["started_at"].(string); ok {
		is.StartedAt = &s
	}
	if s := str("last_updated"); s != "" {
		is.LastUpdated = &s
	} else {
		var last string
		if json.Unmarshal(top["lastActivity"], &last) == nil && last != "" {
			is.LastUpdated = &last
		}
	}
	review, qa := str("review_passed"), str("qa_passed")
	switch {
	case review == "true" && qa == "true":
		is.Verdict = new("PASS")
	case review == "false" || qa == "false":
		is.Verdict = new("FAIL")
	}
	return is, nil
}

// parseInt is JavaScript's parseInt(String(v), 10) with NaN as nil:
// leading white space, an optional sign, then as many digits as there are.
func parseInt(v any) *int64 {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case float64:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return nil
	}
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[:1], s[1:]
	}
	end := len(s) - len(strings.TrimLeft(s, "0123456789")) // the leading digits
	if end == 0 {
		return nil
	}
	n, err := strconv.ParseInt(sign+s[:end], 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// FileError is a pipeline file that could not be read as a view.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

func (e *FileError) Unwrap() error { return e.Err }

// ErrNoState is returned when the state directory has no file for an issue.
var ErrNoState = errors.New("no pipeline state")

// Load reads state/pipeline/<n>.json under dir (the directory that holds
// state/).
func Load(dir string, n int) (Issue, error) {
	p := filepath.Join(dir, Dir, strconv.Itoa(n)+".json")
	data, err := regular.Read(p, 0) // a committed link to /dev/zero or a pipe is refused
	if errors.Is(err, os.ErrNotExist) {
		return Issue{}, fmt.Errorf("%w for issue %d (no %s)", ErrNoState, n, filepath.ToSlash(filepath.Join(Dir, strconv.Itoa(n)+".json")))
	}
	if err != nil {
		return Issue{}, err
	}
	is, err := Normalize(n, data)
	if err != nil {
		return Issue{}, &FileError{p, err}
	}
	return is, nil
}

// LoadAll reads every state/pipeline/<N>.json under dir, by issue number.
// Files that cannot be read are returned as errors next to the issues that
// could; other file names are ignored.
func LoadAll(dir string) ([]Issue, []error) {
	entries, err := os.ReadDir(filepath.Join(dir, Dir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{err}
	}
	var nums []int
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !IsIssueKey(base) || e.IsDir() {
			continue
		}
		if n, err := strconv.Atoi(base); err == nil {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	var out []Issue
	var errs []error
	for _, n := range nums {
		is, err := Load(dir, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, is)
	}
	return out, errs
}
