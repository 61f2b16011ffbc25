package schema

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// ValidateFile validates the bytes of one file given its path relative to
// the top of the repository (forward slashes). It is what the pre-commit
// hook calls with a staged blob, and what `git queen validate` calls with a
// file from the work tree. The format comes from opts.Format, else from the
// registry (by path, then by the first line); a file of no known format is
// returned with an empty Format and no problems.
func ValidateFile(path string, data []byte, opts Options) Result {
	f, res, ok := formatOf(path, data, opts)
	if !ok {
		return res
	}
	return Validate(f, path, data, opts)
}

// ValidateLarge is ValidateFile for a file that may be large, mapped
// rather than read: one of an incremental format past windowedValidation
// bytes is validated a window at a time, each dropped once read (forget:
// mapfile.Forget), so that the memory it takes is a window and a digest
// of about 40 bytes a line, not the file and a hash of every line.
func ValidateLarge(path string, data []byte, opts Options, forget func([]byte)) Result {
	f, res, ok := formatOf(path, data, opts)
	if !ok {
		return res
	}
	if r, _, ok := validateWindows(f, path, data, opts, forget); ok {
		return r
	}
	return Validate(f, path, data, opts)
}

// formatOf is the format ValidateFile validates path as; when there is
// none to validate with, ok is false and res is the result to return.
func formatOf(path string, data []byte, opts Options) (f *Format, res Result, ok bool) {
	if opts.Format != "" {
		if f, ok = Lookup(opts.Format); !ok {
			return nil, Result{Path: path, Format: opts.Format, Problems: []Problem{{Path: path, Rule: RuleUnknownFormat,
				Message: fmt.Sprintf("no format named %q; `git queen schema list` shows them", opts.Format)}}}, false
		}
		return f, Result{}, true
	}
	reg := opts.Registry
	if reg == nil {
		reg = DefaultRegistry()
	}
	if f, ok = reg.FormatFor(path, FirstLine(data)); !ok {
		return nil, Result{Path: path}, false
	}
	return f, Result{}, true
}

// Validate validates data as format f.
func Validate(f *Format, path string, data []byte, opts Options) Result {
	limit := opts.MaxProblems()
	if f.Kind == JSONL {
		probs, total, records := validateLines(f, path, data, limit, opts.Workers)
		return resultOf(f, path, probs, total, records, limit)
	}
	// A document's problems come in schema order, not line order: keep
	// them all, sort, then cut to the limit.
	c := &checker{limit: int(^uint(0) >> 1), path: path}
	validateDocument(c, f, path, data)
	sortProblems(c.probs)
	return resultOf(f, path, c.probs, c.total, 1, limit)
}

// resultOf is the result of validating path as f: records read, and the
// first limit of the problems found (total of them), each naming path.
func resultOf(f *Format, path string, probs []Problem, total, records, limit int) Result {
	probs = probs[:min(len(probs), limit)]
	for i := range probs {
		probs[i].Path = path
	}
	if probs == nil {
		probs = []Problem{}
	}
	return Result{Path: path, Format: f.Name, Records: records, Problems: probs, Omitted: total - len(probs)}
}

// FirstLine is the first non-blank line of data that is not a git
// conflict marker, without a BOM or line ending: what the registry looks at
// to recognise a file by content. A stream two branches both started,
// merged without the driver, opens with "<<<<<<<": validate skipped it as
// of no known format, and the pre-commit hook let its markers through.
func FirstLine(data []byte) []byte {
	for l := range jsonline.Lines(data) {
		if !l.Blank() && !jsonline.IsConflictMarker(l.Raw) {
			return l.Raw
		}
	}
	return nil
}

// parallelMin is the size from which a JSONL file is split across workers;
// below it, starting goroutines costs more than it saves.
const parallelMin = 1 << 20

// lineHash identifies a line for the duplicate-line rule.
type lineHash struct {
	h    uint64
	no   int
	raw  []byte
	uniq []byte // the raw value of the format's unique field, if any
}

type chunkResult struct {
	c       checker
	hashes  []lineHash
	records int
}

var hashSeed = maphash.MakeSeed()

func validateLines(f *Format, path string, data []byte, limit, workers int) ([]Problem, int, int) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunks := splitChunks(data, workers)
	results := make([]chunkResult, len(chunks))
	var wg sync.WaitGroup
	for i, ch := range chunks {
		wg.Go(func() {
			r := &results[i]
			r.c = checker{limit: limit, path: path}
			validateChunk(f, ch.data, ch.first, r)
		})
	}
	wg.Wait()

	var probs []Problem
	var hashes []lineHash
	total, records := 0, 0
	for i := range results {
		probs = append(probs, results[i].c.probs...)
		hashes = append(hashes, results[i].hashes...)
		total += results[i].c.total
		records += results[i].records
	}
	cross := crossLineRules(f, path, data, nil, hashes, data, 1, limit)
	probs = append(probs, cross.probs...)
	total += cross.total
	sortProblems(probs)
	return probs, total, records
}

type chunk struct {
	data  []byte
	first int
}

// splitChunks cuts data at line boundaries into about n parts, each with the
// number of its first line.
func splitChunks(data []byte, n int) []chunk {
	if n <= 1 || len(data) < parallelMin {
		return []chunk{{data, 1}}
	}
	var out []chunk
	size := len(data)/n + 1
	first := 1
	for len(data) > 0 {
		end := min(size, len(data))
		if i := bytes.IndexByte(data[end-1:], '\n'); i >= 0 {
			end += i
		} else {
			end = len(data)
		}
		part := data[:end]
		out = append(out, chunk{part, first})
		first += bytes.Count(part, []byte{'\n'})
		data = data[end:]
	}
	return out
}

func validateChunk(f *Format, data []byte, first int, r *chunkResult) {
	c := &r.c
	var uniqKeys []string
	var uniqVals [][]byte
	if f.unique != "" {
		uniqKeys, uniqVals = []string{f.unique}, make([][]byte, 1)
	}
	for l := range jsonline.LinesFrom(data, first) {
		if l.Blank() {
			continue
		}
		r.records++
		c.line = l.No
		raw := l.Raw
		if jsonline.IsConflictMarker(raw) {
			c.add("", RuleConflictMarker, "git conflict marker: the file was merged without the queen merge driver; "+
				"run `git queen resolve` on it (and `git queen init` so merges use the driver)")
			continue
		}
		if !utf8.Valid(raw) {
			c.add("", RuleJSON, fmt.Sprintf("not valid UTF-8 (byte %d): JSON text is UTF-8; Go readers take the byte "+
				"for U+FFFD and others refuse the line", invalidUTF8At(raw)))
		}
		if f.fast != nil {
			f.fast(c, raw)
		} else {
			checkRecord(c, f, raw)
		}
		if f.dupLines || f.unique != "" {
			lh := lineHash{h: maphash.Bytes(hashSeed, raw), no: l.No, raw: raw}
			if f.unique != "" && jsonline.ObjectFields(raw, uniqKeys, uniqVals) == nil {
				lh.uniq = uniqVals[0]
			}
			r.hashes = append(r.hashes, lh)
		}
	}
}

// invalidUTF8At is the offset of the first byte of b that is not UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// checkRecord validates one line through the JSON Schema library, for the
// formats that have no hand-written validator.
func checkRecord(c *checker, f *Format, raw []byte) {
	if err := jsonline.Valid(raw); err != nil {
		c.add("", RuleJSON, "not valid JSON: "+err.Error())
		return
	}
	if f.Schema == "" {
		return
	}
	doc, err := decodeJSON(raw)
	if err != nil {
		c.add("", RuleJSON, "not valid JSON: "+err.Error())
		return
	}
	checkSchema(c, f.Schema, doc)
	if f.extra != nil {
		f.extra(c, doc, c.path)
	}
}

// crossLineRules applies the rules that relate a line to others: lines
// repeated byte for byte (a union merge's symptom), values of the format's
// unique field that repeat, the rules of a whole stream, and the version
// order of a QueenBee store. lines are the hashes of tail, the lines after
// the prefix of data that prev digests (nil: tail is the whole of data),
// the first of them numbered first.
func crossLineRules(f *Format, path string, data []byte, prev *Digest, lines []lineHash, tail []byte, first, limit int) *checker {
	c := &checker{limit: limit, path: path}
	if dup := duplicateLines(c, f, data, prev, lines); f.unique != "" {
		duplicateKeys(c, f, data, prev, lines, dup)
	}
	if f.whole != nil {
		f.whole(c, data)
	}
	if f.versioned {
		versionOrder(c, f, data, prev, tail, first)
	}
	return c
}

// sortProblems orders problems by line, as a full validation reports them.
func sortProblems(probs []Problem) {
	slices.SortStableFunc(probs, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
}
