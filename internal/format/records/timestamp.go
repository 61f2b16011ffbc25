package records

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// ParseTime reads a JSON string holding an RFC 3339 time, exactly as
// time.Parse(time.RFC3339Nano) does. The form git-queen writes (UTC, "Z",
// up to nine fraction digits) is read in place without allocating, in
// half the time of unquoting and time.Parse, which matters because the
// hook judges the expiry of every reservation. Readers take a time at an
// offset too; the rule every version obeys takes ParseUTC's alone.
func ParseTime(raw []byte) (time.Time, bool) { return readTime(raw, false) }

// ParseUTC is ParseTime for a time in UTC as seed 002 writes every one
// (UTCShape: 2026-11-28T10:00:00Z, ...00.123Z), and as the schemas ask of
// every time a log holds: the one form of time CheckVersion admits, so
// that a version a sync applies never fails validation of the store
// (2026-11-28T10:00:00+02:00 read as RFC 3339 did).
func ParseUTC(raw []byte) (time.Time, bool) { return readTime(raw, true) }

func readTime(raw []byte, utc bool) (time.Time, bool) {
	if n := len(raw); n > 2 && raw[0] == '"' && raw[n-1] == '"' {
		// The common form has no escapes: read it in place.
		if t, ok := parseUTC(raw[1 : n-1]); ok {
			return t, true
		}
	}
	s, ok := jsonline.String(raw)
	if !ok || utc && !UTCShape(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// UTCShape says whether s has the shape of a time in UTC, the schemas'
// pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$;
// ParseUTC and the schemas' validators both ask it.
func UTCShape(s string) bool {
	const shape = "0000-00-00T00:00:00" // '0' stands for any digit
	if len(s) < 20 || s[len(s)-1] != 'Z' {
		return false
	}
	for i := range len(shape) {
		if c := s[i]; shape[i] == '0' && (c < '0' || c > '9') || shape[i] != '0' && c != shape[i] {
			return false
		}
	}
	frac := s[19 : len(s)-1]
	if frac == "" {
		return true
	}
	if frac[0] != '.' || len(frac) < 2 {
		return false
	}
	for i := 1; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return false
		}
	}
	return true
}

// parseUTC parses "YYYY-MM-DDTHH:MM:SS[.F]Z", F one to nine digits, and
// declines anything else (a backslash among it too), leaving it to
// time.Parse.
func parseUTC(s []byte) (time.Time, bool) {
	n := len(s)
	if n < 20 || n > 30 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
		(n > 20 && (s[19] != '.' || n == 21)) {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	nsec := 0
	ok7 := true
	if n > 20 {
		frac := s[20 : n-1]
		nsec, ok7 = digits(frac)
		for range 9 - len(frac) {
			nsec *= 10
		}
	}
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || month < 1 || month > 12 || day < 1 ||
		day > DaysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

func digits(s []byte) (int, bool) {
	v := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// DaysIn is how many days month (1 to 12) has in year, by the Gregorian
// calendar that RFC 3339 dates use.
func DaysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
