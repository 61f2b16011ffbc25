package records

import (
	"slices"
	"strconv"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// CheckedNew is the line of a new record that a local write appends to
// the log file: rec encoded as the log engine encodes records (a []byte
// is taken as it is), refused with an InvalidError when it breaks a rule
// of CheckVersion, so that no other clone ever sets aside what this one
// writes, or when it is over MaxNewLineBytes, which leaves room for the
// fields its later versions add.
func CheckedNew(file string, rec any) ([]byte, error) {
	line, ok := rec.([]byte)
	if !ok {
		var err error
		if line, err = jsonline.MarshalNoEscape(rec); err != nil {
			return nil, err
		}
	}
	if len(line) > MaxNewLineBytes {
		return nil, Invalidf("the record would be %d bytes, over the %d a new record may have (%d KiB, less %d KiB kept for its later versions); shorten it",
			len(line), MaxNewLineBytes, MaxLineBytes>>10, (MaxLineBytes-MaxNewLineBytes)>>10)
	}
	return line, refuse(CheckVersion(file, line))
}

// CheckedNext checks line, a new version of the record whose current
// version is prev, as CheckedNew does, except that a record whose current
// version already breaks a rule (written by hand, or by a git-queen from
// before the rule) may still be changed: refusing would leave a droid
// unable to release its own reservation, and other clones set that
// record aside whatever its next version says.
//
// Its times at an offset (an older build's, which syncs took until the
// time rule) are written as the same instants in UTC: carried on as they
// were, they had every clone set aside the version that ended the record,
// which stayed active there for good.
func CheckedNext(file string, prev, line []byte) ([]byte, error) {
	line = inUTC(line)
	e := CheckVersion(file, line)
	if e != nil && CheckVersion(file, prev) != nil {
		return line, nil
	}
	return line, refuse(e)
}

func refuse(e *RuleError) error {
	if e == nil {
		return nil
	}
	return Invalidf("refusing to write a record other clones would set aside: %v", e)
}

// inUTC is line with each time RFC 3339 reads but the time rule refuses
// (2026-11-20T12:00:00+02:00) written as the same instant in UTC
// (2026-11-20T10:00:00Z).
func inUTC(line []byte) []byte {
	out := []byte{'{'}
	changed := false
	err := jsonline.EachMember(line, func(rawKey, key, value []byte) {
		if i := slices.Index(fieldNames[:], string(key)); i >= 0 && fieldKinds[i] == kTime {
			if _, ok := ParseUTC(value); !ok {
				if t, ok := ParseTime(value); ok {
					value, changed = strconv.AppendQuote(nil, t.UTC().Format(time.RFC3339Nano)), true
				}
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, rawKey...), ':'), value...)
	})
	if err != nil || !changed {
		return line
	}
	return append(out, '}')
}
