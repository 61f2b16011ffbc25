package work

import (
	"encoding/binary"
	"encoding/json"
	"errors"

	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// memoMagic starts a pool's memo. Its version changes whenever what
// AddBeads derives from a file changes, so that an older memo is never
// read as a newer one.
const memoMagic = "git-queen ready memo v1\n"

// errMemo says a memo cannot be read back; the file is then read again.
var errMemo = errors.New("not a ready memo of this version")

// Memo is the pool's open work and problems in a form AddMemo reads back
// without the files they came from: what `git queen ready` remembers of
// a large tracker between runs, while the tracker does not change.
func (p *Pool) Memo() []byte {
	b := []byte(memoMagic)
	b = binary.AppendUvarint(b, uint64(len(p.entries)))
	for i := range p.entries {
		e := &p.entries[i]
		it := e.item
		if it != nil { // an item made whole: remember its decoded fields as raw ones
			e2 := *e
			e2.title, e2.kind, e2.assignee = quote(it.Title), quote(it.IssueType), quote(it.Assignee)
			e = &e2
		}
		for _, f := range [][]byte{[]byte(e.id), e.created, e.title, e.kind, e.assignee, []byte(e.file), []byte(e.status), []byte(e.source)} {
			b = appendBytes(b, f)
		}
		b = binary.AppendUvarint(b, uint64(e.priority))
		b = binary.AppendUvarint(b, uint64(e.line))
		b = binary.AppendUvarint(b, uint64(len(e.waiting)))
		for _, w := range e.waiting {
			b = appendBytes(b, []byte(w))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(p.Problems)))
	for _, pr := range p.Problems {
		b = appendBytes(b, []byte(pr.File))
		b = binary.AppendUvarint(b, uint64(pr.Line))
		b = appendBytes(b, []byte(pr.Msg))
	}
	return b
}

// AddMemo adds the work and problems of a memo Memo wrote. The pool keeps
// slices of data. A memo that does not read back whole adds nothing and
// is an error.
func (p *Pool) AddMemo(data []byte) error {
	r := memoReader{b: data}
	if len(data) < len(memoMagic) || string(data[:len(memoMagic)]) != memoMagic {
		return errMemo
	}
	r.b = data[len(memoMagic):]
	n := r.count()
	entries := make([]entry, 0, min(n, len(r.b)))
	var intern interned
	for range n {
		var e entry
		e.id = string(r.bytes())
		e.created, e.title, e.kind, e.assignee = nilIfEmpty(r.bytes()), nilIfEmpty(r.bytes()), nilIfEmpty(r.bytes()), nilIfEmpty(r.bytes())
		e.file, e.status, e.source = intern.of(r.bytes()), intern.of(r.bytes()), intern.of(r.bytes())
		e.priority, e.line = r.count(), r.count()
		if w := r.count(); w > 0 && w <= len(r.b) {
			e.waiting = make([]string, 0, w)
			for range w {
				e.waiting = append(e.waiting, string(r.bytes()))
			}
		} else if w > 0 {
			r.err = true
		}
		if r.err {
			return errMemo
		}
		entries = append(entries, e)
	}
	var problems []jsonl.Problem
	for range r.count() {
		pr := jsonl.Problem{File: string(r.bytes())}
		pr.Line = r.count()
		pr.Msg = string(r.bytes())
		if r.err {
			return errMemo
		}
		problems = append(problems, pr)
	}
	if r.err || len(r.b) != 0 {
		return errMemo
	}
	p.Add(&Pool{entries: entries, Problems: problems})
	return nil
}

// Add adds another pool's work and problems (taking o's, not copying
// them, when p has none).
func (p *Pool) Add(o *Pool) {
	if len(p.entries) == 0 {
		p.entries = o.entries
	} else {
		p.entries = append(p.entries, o.entries...)
	}
	p.Problems = append(p.Problems, o.Problems...)
}

// interned hands out one string for the few values a memo repeats on
// every entry (the file, the status, the source).
type interned []string

func (in *interned) of(b []byte) string {
	for _, s := range *in {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	if len(*in) < 16 {
		*in = append(*in, s)
	}
	return s
}

func appendBytes(b, f []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(f)))
	return append(b, f...)
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// quote is s as a raw JSON string, nil for "".
func quote(s string) []byte {
	if s == "" {
		return nil
	}
	b, _ := jsonMarshalString(s)
	return b
}

// memoReader reads what Memo wrote; err is set at the first thing that
// does not fit, and every read after it returns nothing.
type memoReader struct {
	b   []byte
	err bool
}

func (r *memoReader) count() int {
	if r.err {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > uint64(len(r.b))*8+1<<20 {
		r.err = true
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *memoReader) bytes() []byte {
	n := r.count()
	if r.err || n > len(r.b) {
		r.err = true
		return nil
	}
	f := r.b[:n:n]
	r.b = r.b[n:]
	return f
}

func jsonMarshalString(s string) ([]byte, error) { return json.Marshal(s) }
