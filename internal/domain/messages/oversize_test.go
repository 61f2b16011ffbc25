package messages

import (
	"os"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// A message line over records.MaxLineBytes, added by hand past the limit
// every writer keeps, is reported, not decoded: msg read of a 60 MB line
// decoded it, appended its read version (60 MB more to the log), and
// cost three times the inbox that listed it.
func TestAMessageOverTheLineLimitIsReportedNotRead(t *testing.T) {
	f := newFixture(t)
	msg := f.send(t, Draft{From: "ann", To: "bob", Subject: "hello"})
	_, raw, err := f.m.Get(msg.ID)
	if err != nil {
		t.Fatal(err)
	}
	bigID := msg.ID[:len(msg.ID)-4] + "ZZZZ"
	if bigID == msg.ID {
		bigID = msg.ID[:len(msg.ID)-4] + "YYYY"
	}
	big, err := jsonl.SetFields(raw, jsonl.Field{Name: "id", Value: bigID}, jsonl.Field{Name: "body", Value: strings.Repeat("x", records.MaxLineBytes)})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.logPath(), string(raw)+"\n"+string(big)+"\n")
	before, _ := os.ReadFile(f.logPath())

	if _, _, err := f.m.MarkRead(bigID, "bob"); err == nil || !strings.Contains(err.Error(), "a record version is at most") {
		t.Errorf("reading the long message: %v; want the line's size reported", err)
	}
	if after, _ := os.ReadFile(f.logPath()); len(after) != len(before) {
		t.Errorf("reading the long message wrote %d bytes to the log", len(after)-len(before))
	}
	page, err := f.m.Inbox("bob", InboxOptions{})
	if err != nil || len(page.Messages) != 1 || page.Messages[0].ID != msg.ID || len(page.Problems) != 1 {
		t.Errorf("the inbox lists %d messages and %d problems (%v); want the short one, and the long one reported", len(page.Messages), len(page.Problems), err)
	}
}

// A problem of a message line is printed after its file and line
// (jsonl.Problem.Error), so its message does not say them again: the
// inbox printed "skipped FILE:6: FILE:6: message ...".
func TestAMessageProblemSaysWhereOnce(t *testing.T) {
	f := newFixture(t)
	msg := f.send(t, Draft{From: "ann", To: "bob", Subject: "hello"})
	_, raw, err := f.m.Get(msg.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Another record's id, newer than msg's (the newest is listed first):
	// its last character that is not Z, the largest, made Z.
	i := strings.LastIndexFunc(msg.ID, func(r rune) bool { return r != 'Z' })
	newer := msg.ID[:i] + "Z" + msg.ID[i+1:]
	bad, err := jsonl.SetFields(raw, jsonl.Field{Name: "id", Value: newer}, jsonl.Field{Name: "read", Value: "no"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.logPath(), string(raw)+"\n"+string(bad)+"\n")
	for _, limit := range []int{0, 1} { // every message, and the newest only
		page, err := f.m.Inbox("bob", InboxOptions{Limit: limit})
		if err != nil || len(page.Problems) != 1 {
			t.Fatalf("limit %d: %d problems (%v); want the bad line's", limit, len(page.Problems), err)
		}
		if got := page.Problems[0].Error(); strings.Count(got, f.logPath()) != 1 || !strings.Contains(got, ":2: message ") {
			t.Errorf("limit %d: problem %q; want its file and line said once", limit, got)
		}
	}
}
