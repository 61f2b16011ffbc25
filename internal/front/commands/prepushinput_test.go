package commands

import (
	"strings"
	"testing"
)

func TestPrePushInputIsBounded(t *testing.T) {
	env := &Env{Stdin: strings.NewReader(strings.Repeat("x", maxPushInput+1)), Getenv: func(string) string { return "" }}
	if _, err := readPushRefs(env); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Fatalf("a huge stdin: %v", err)
	}
}
