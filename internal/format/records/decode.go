package records

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// messageFields are the fields DecodeMessage reads, in the order of its
// setters below.
var messageFields = []string{"id", "created_at", "updated_at", "from", "to", "subject", "body",
	"issue_id", "reply_to", "thread_id", "importance", "read", "read_at", "deleted", "updated_by"}

var errUnusual = errors.New("unusual field")

// DecodeMessage decodes a message line. An inbox decodes thousands of
// messages per call, and encoding/json spends most of its time on
// reflection; this reads the fields in one pass of the validating scanner
// and falls back to encoding/json for anything unusual, so the result (and
// any error) is the same.
func DecodeMessage(raw []byte) (Message, error) {
	return decode(raw, messageFields, func(vals [][]byte) (m Message, err error) {
		err = errors.Join(
			str(vals[0], &m.ID), tm(vals[1], &m.CreatedAt), optionalTime(vals[2], &m.UpdatedAt),
			str(vals[3], &m.From), str(vals[4], &m.To), str(vals[5], &m.Subject), str(vals[6], &m.Body),
			str(vals[7], &m.IssueID), str(vals[8], &m.ReplyTo), str(vals[9], &m.ThreadID), str(vals[10], &m.Importance),
			boolean(vals[11], &m.Read), optionalTime(vals[12], &m.ReadAt), boolean(vals[13], &m.Deleted), str(vals[14], &m.UpdatedBy))
		return m, err
	})
}

// decode reads raw's fields in one pass of the validating scanner and
// has read make the record of their raw values, falling back to
// encoding/json when the line or a value is unusual, so the result (and
// any error) is the same.
func decode[T any](raw []byte, fields []string, read func(vals [][]byte) (T, error)) (T, error) {
	vals := make([][]byte, len(fields))
	if jsonline.ObjectFields(raw, fields, vals) == nil {
		if r, err := read(vals); err == nil {
			return r, nil
		}
	}
	var r T
	return r, json.Unmarshal(raw, &r)
}

func str(raw []byte, dst *string) error {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	s, ok := jsonline.String(raw)
	if !ok {
		return errUnusual
	}
	*dst = s
	return nil
}

func boolean(raw []byte, dst *bool) error {
	switch string(raw) {
	case "", "null", "false":
		*dst = false
	case "true":
		*dst = true
	default:
		return errUnusual
	}
	return nil
}

func tm(raw []byte, dst *time.Time) error {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	t, ok := ParseTime(raw)
	if !ok {
		return errUnusual
	}
	*dst = t
	return nil
}

// optionalTime is tm for a field that may be absent or null (nil then).
func optionalTime(raw []byte, dst **time.Time) error {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	*dst = new(time.Time)
	return tm(raw, *dst)
}

// reservationFields are the fields DecodeReservation reads, in the order of
// its setters below.
var reservationFields = []string{"id", "created_at", "updated_at", "expires_at", "released_at",
	"pattern", "droid", "issue_id", "status", "exclusive", "reason", "forced", "withdrawn", "updated_by", "stolen"}

// DecodeReservation decodes a reservation line the way DecodeMessage
// decodes a message: the pre-commit hook and reserve decode every active
// reservation (a thousand in the benchmark) on each run, and encoding/json
// was a third of the hook's time. Same result and error as encoding/json.
func DecodeReservation(raw []byte) (Reservation, error) {
	return decode(raw, reservationFields, func(vals [][]byte) (r Reservation, err error) {
		err = errors.Join(
			str(vals[0], &r.ID), tm(vals[1], &r.CreatedAt), optionalTime(vals[2], &r.UpdatedAt),
			tm(vals[3], &r.ExpiresAt), optionalTime(vals[4], &r.ReleasedAt),
			str(vals[5], &r.Pattern), str(vals[6], &r.Droid), str(vals[7], &r.IssueID), str(vals[8], &r.Status),
			boolean(vals[9], &r.Exclusive), str(vals[10], &r.Reason), boolean(vals[11], &r.Forced), str(vals[12], &r.Withdrawn),
			str(vals[13], &r.UpdatedBy), boolean(vals[14], &r.Stolen))
		return r, err
	})
}
