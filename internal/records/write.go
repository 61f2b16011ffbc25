package records

import (
	"encoding/json"

	"github.com/git-queen/git-queen/internal/jsonline"
)

// Checked is the line a local write appends to the log file: rec encoded
// as the log engine encodes records (a []byte or json.RawMessage is taken
// as it is), refused with an InvalidError when it breaks a rule of
// CheckVersion, so that no other clone ever sets aside what this one
// writes. A first version (created) must also fit MaxNewLineBytes, which
// leaves room for the fields its later versions add.
func Checked(file string, rec any, created bool) ([]byte, error) {
	var line []byte
	switch v := rec.(type) {
	case []byte:
		line = v
	case json.RawMessage:
		line = v
	default:
		b, err := jsonline.MarshalNoEscape(rec)
		if err != nil {
			return nil, err
		}
		line = b
	}
	if created && len(line) > MaxNewLineBytes {
		return nil, Invalidf("the record would be %d bytes, over the %d a new record may have (%d KiB, less %d KiB kept for its later versions); shorten it",
			len(line), MaxNewLineBytes, MaxLineBytes>>10, (MaxLineBytes-MaxNewLineBytes)>>10)
	}
	if e := CheckVersion(file, line); e != nil {
		return nil, Invalidf("refusing to write a record other clones would set aside: %v", e)
	}
	return line, nil
}
