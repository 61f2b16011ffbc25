package ledgersync

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/jsonline"
)

// brokenRule says which rule a version another clone wrote breaks, and how
// ("" when none): what every version obeys wherever it was written.
func brokenRule(file string, line []byte) (rule, msg string) {
	if len(line) > maxLineBytes {
		return "size", fmt.Sprintf("a version of %d bytes, more than %d", len(line), maxLineBytes)
	}
	if err := jsonline.ObjectFields(line, nil, nil); err != nil {
		return "json", "not a JSON object: " + err.Error()
	}
	return "", ""
}

// maxLineBytes is the largest record version taken from another clone.
const maxLineBytes = 256 << 10
