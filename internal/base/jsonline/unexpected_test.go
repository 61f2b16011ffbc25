package jsonline

import (
	"fmt"
	"strings"
	"testing"
)

// A line that opens with a byte no JSON value opens with is refused in the
// words fmt's %q gives that byte (the scanner quotes it without fmt, once
// a line of a hostile ledger), whatever the byte.
func TestAnUnexpectedCharacterIsQuotedAsFmtQuotesIt(t *testing.T) {
	n := 0
	for c := range 256 {
		err := Valid([]byte{byte(c), ' '})
		if err == nil || !strings.Contains(err.Error(), "unexpected character") {
			continue
		}
		n++
		if want := fmt.Sprintf("invalid JSON at byte 0: unexpected character %q", byte(c)); err.Error() != want {
			t.Errorf("byte %#x: %q, want %q", c, err, want)
		}
	}
	if n < 200 {
		t.Fatalf("only %d bytes were unexpected", n)
	}
}
