package schema

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// benchLog is a 50 MB message log of realistic records (about 500 bytes:
// markdown bodies, escapes, read receipts, an unknown field now and then).
var benchLog = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	body := strings.Repeat(`Looked at the failing test in **auth/login_test.go**; the \"session\" cookie is not set when Safari drops it. `, 3)
	for i := 0; b.Len() < 50<<20; i++ {
		read := `"read":false`
		if i%3 == 0 {
			read = `"read":true,"read_at":"2026-02-09T20:05:00.123Z"`
		}
		extra := ""
		if i%10 == 0 {
			extra = `,"x_labels":["auth","p1"]`
		}
		fmt.Fprintf(&b, `{"id":"qm-01HZ%022d","created_at":"2026-02-09T20:%02d:%02dZ","updated_at":"2026-02-09T20:%02d:%02d.5Z","from":"droid-%d","to":"droid-%d","subject":"Re: login fails on Safari (%d)","body":"%s","issue_id":"qb-%d","thread_id":"qb-%d","importance":"normal",%s%s}`+"\n",
			i, i/60%60, i%60, i/60%60, i%60, i%7, (i+1)%7, i, body, i%300, i%300, read, extra)
	}
	return b.Bytes()
})

func benchmarkGo(b *testing.B, workers int) {
	data := benchLog()
	f, _ := Lookup("queen-message")
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if r := Validate(f, ".beads/queen_messages.jsonl", data, Options{Workers: workers}); !r.Valid() {
			b.Fatal(r.Problems[0])
		}
	}
}

// BenchmarkValidateMessages is `git queen validate` on a 50 MB message log:
// the hand-written validator, lines spread over every CPU.
func BenchmarkValidateMessages(b *testing.B) { benchmarkGo(b, 0) }

// BenchmarkValidateMessages1CPU is the same on one goroutine.
func BenchmarkValidateMessages1CPU(b *testing.B) { benchmarkGo(b, 1) }

// BenchmarkValidateMessagesJSONSchema is the plain path the hand-written
// validator replaces: every line decoded and validated by the JSON Schema
// library, on one goroutine.
func BenchmarkValidateMessagesJSONSchema(b *testing.B) {
	data := benchLog()
	sch, err := Compiled("queen-message")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		for l := range jsonline.Lines(data) {
			doc, err := decodeJSON(l.Raw)
			if err != nil {
				b.Fatal(err)
			}
			if err := sch.Validate(doc); err != nil {
				b.Fatal(err)
			}
		}
	}
}
