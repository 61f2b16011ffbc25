package schema

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"math"
	"time"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
)

// A Digest is what the validation of a clean JSON Lines file leaves for
// validating an append to it: per record line, a hash of its bytes, a hash
// of its key (the id of a versioned store, or the format's unique field),
// its version time, and where it is. A log that only grows is then
// validated by checking the appended lines alone, against the digest
// instead of the lines before them: what the pre-commit hook pays follows
// the commit, not the history. Hashes only find candidates; a match is
// confirmed on the bytes, which the appended file still holds.
type Digest struct {
	Format string
	// Size is the length of the file digested, Lines its number of lines
	// (it ends with a newline), Records its non-blank lines.
	Size    int64
	Lines   int
	Records int
	Entries []DigestEntry
}

// DigestEntry is one non-blank line of a digested file.
type DigestEntry struct {
	Hash uint64 // of the line's bytes
	Key  uint64 // of its key; 0 when it has none
	Time int64  // its version time (versioned formats), math.MinInt64 for none
	Off  uint64
	Len  uint32
	No   uint32
}

// Incremental reports whether a file of format f can be validated by its
// appended lines and a Digest of the rest: JSON Lines whose rules across
// lines are repeated lines, a unique field, or the version order of a
// QueenBee store (st streams' own rules need the whole stream).
func (f *Format) Incremental() bool {
	return f.Kind == JSONL && f.whole == nil
}

// lineSum is a line's hash in a digest: two CRCs (the CPU computes both at
// memory speed), stable across processes, unlike maphash.
func lineSum(b []byte) uint64 {
	return uint64(crc32c.Checksum(b))<<32 | uint64(crc32.ChecksumIEEE(b))
}

// DigestOf digests data, a file of format f that validated clean.
func DigestOf(f *Format, data []byte) *Digest {
	d := &Digest{Format: f.Name, Size: int64(len(data))}
	d.Entries, d.Lines, d.Records = digestLines(f, data, 0, 1, nil)
	return d
}

// digestLines digests the lines of data, which starts at offset base of
// its file with line number first, appending to out.
func digestLines(f *Format, data []byte, base int64, first int, out []DigestEntry) ([]DigestEntry, int, int) {
	keys := f.digestKeys()
	vals := make([][]byte, len(keys))
	last, records := first-1, 0
	for l := range jsonline.LinesFrom(data, first) {
		last = l.No
		if l.Blank() {
			continue
		}
		records++ // as validation counts them: conflict markers too
		if jsonline.IsConflictMarker(l.Raw) {
			continue
		}
		off := base + int64(cap(data)-cap(l.Raw))
		e := DigestEntry{Hash: lineSum(l.Raw), Time: math.MinInt64, Off: uint64(off), Len: uint32(len(l.Raw)), No: uint32(l.No)}
		if len(keys) > 0 && jsonline.ObjectFields(l.Raw, keys, vals) == nil {
			e.Key, e.Time = f.keyOf(vals)
		}
		out = append(out, e)
	}
	return out, last, records
}

// digestKeys are the fields a digest reads: the id and the version fields
// of a versioned store, or the unique field.
func (f *Format) digestKeys() []string {
	switch {
	case f.versioned:
		return append([]string{jsonline.DefaultKey}, records.Versions.Fields...)
	case f.unique != "":
		return []string{f.unique}
	}
	return nil
}

// keyOf is the key hash and version time of the values digestKeys found.
func (f *Format) keyOf(vals [][]byte) (uint64, int64) {
	if f.versioned {
		id, ok := jsonline.String(vals[0])
		if !ok || id == "" {
			return 0, math.MinInt64
		}
		return lineSum([]byte(id)) | 1, nanos(records.Versions.Time(vals[1:]))
	}
	if vals[0] == nil {
		return 0, math.MinInt64
	}
	return lineSum(vals[0]) | 1, math.MinInt64
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixNano()
}

func timeOf(n int64) time.Time {
	if n == math.MinInt64 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// MarshalBinary encodes d: a JSON header line, then the entries.
func (d *Digest) MarshalBinary() ([]byte, error) {
	head, err := json.Marshal(map[string]any{"format": d.Format, "size": d.Size, "lines": d.Lines, "records": d.Records, "n": len(d.Entries)})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+1+len(d.Entries)*entrySize)
	out = append(append(out, head...), '\n')
	for _, e := range d.Entries {
		out = binary.LittleEndian.AppendUint64(out, e.Hash)
		out = binary.LittleEndian.AppendUint64(out, e.Key)
		out = binary.LittleEndian.AppendUint64(out, uint64(e.Time))
		out = binary.LittleEndian.AppendUint64(out, e.Off)
		out = binary.LittleEndian.AppendUint32(out, e.Len)
		out = binary.LittleEndian.AppendUint32(out, e.No)
	}
	return out, nil
}

const entrySize = 40

// UnmarshalBinary decodes what MarshalBinary wrote, refusing anything
// else: a damaged digest must not be believed.
func (d *Digest) UnmarshalBinary(data []byte) error {
	head, body, ok := bytes.Cut(data, []byte{'\n'})
	var h struct {
		Format            string
		Size              int64
		Lines, Records, N int
	}
	if !ok || json.Unmarshal(head, &h) != nil || h.Format == "" || h.N < 0 || len(body) != h.N*entrySize || h.Size < 0 {
		return errors.New("not a digest")
	}
	*d = Digest{Format: h.Format, Size: h.Size, Lines: h.Lines, Records: h.Records, Entries: make([]DigestEntry, h.N)}
	for i := range d.Entries {
		b := body[i*entrySize:]
		d.Entries[i] = DigestEntry{Hash: binary.LittleEndian.Uint64(b), Key: binary.LittleEndian.Uint64(b[8:]),
			Time: int64(binary.LittleEndian.Uint64(b[16:])), Off: binary.LittleEndian.Uint64(b[24:]),
			Len: binary.LittleEndian.Uint32(b[32:]), No: binary.LittleEndian.Uint32(b[36:])}
		if d.Entries[i].Off+uint64(d.Entries[i].Len) > uint64(h.Size) {
			return errors.New("not a digest")
		}
	}
	return nil
}
