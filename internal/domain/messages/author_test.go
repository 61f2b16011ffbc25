package messages

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
)

// Every version names its writer: the sender sends, the recipient reads,
// either deletes; and every line obeys the rules another clone applies.
func TestVersionsNameTheirWriter(t *testing.T) {
	f := newFixture(t)
	m := f.send(t, Draft{From: "ann", To: "bob", Subject: "hi"})
	if m.UpdatedBy != "ann" || m.WrittenBy() != "ann" {
		t.Errorf("sent %+v", m)
	}
	if _, changed, err := f.m.MarkRead(m.ID, "ann"); err != nil || changed {
		t.Errorf("the sender's read wrote a version: %v, %v", changed, err)
	}
	read, changed, err := f.m.MarkRead(m.ID, "bob")
	if err != nil || !changed || read.UpdatedBy != "bob" {
		t.Errorf("bob's read: %+v, %v, %v", read, changed, err)
	}
	deleted, err := f.m.Delete(m.ID, "ann")
	if err != nil || deleted.UpdatedBy != "ann" {
		t.Errorf("ann's delete: %+v, %v", deleted, err)
	}
	if cur, _, err := f.m.Get(m.ID); err != nil || cur.UpdatedBy != "ann" || !cur.Deleted || !cur.Read {
		t.Errorf("the current version %+v, %v", cur, err)
	}
	checkLog(t, f)
}

// A body too large for one record is refused when sent, naming the sizes
// and the limit; one that fits leaves room to read and delete it.
func TestBodySizeLimit(t *testing.T) {
	f := newFixture(t)
	_, err := f.m.Send(Draft{From: "ann", To: "bob", Subject: "big", Body: strings.Repeat("x", records.MaxLineBytes)})
	var invalid *records.InvalidError
	if !errors.As(err, &invalid) || !strings.Contains(err.Error(), strconv.Itoa(records.MaxLineBytes)) ||
		!strings.Contains(err.Error(), strconv.Itoa(records.MaxNewLineBytes)) || !strings.Contains(err.Error(), "body") {
		t.Fatalf("a 256 KiB body: %v", err)
	}
	// Escapes count: a body of control characters is six times its size.
	if _, err := f.m.Send(Draft{From: "ann", To: "bob", Subject: "ctl", Body: strings.Repeat("\x01", records.MaxNewLineBytes/6+1)}); !errors.As(err, &invalid) {
		t.Errorf("a body that grows when escaped: %v", err)
	}
	if data, _ := os.ReadFile(f.logPath()); len(data) != 0 {
		t.Fatalf("a refused send wrote %d bytes", len(data))
	}
	// The largest body that fits: a read and a delete still fit too.
	body := strings.Repeat("y", records.MaxNewLineBytes-400)
	for {
		_, err := f.m.Send(Draft{From: "ann", To: "bob-with-a-longer-name", Subject: "fits", Body: body})
		if err == nil {
			break
		}
		body = body[:len(body)-100]
	}
	page, err := f.m.Inbox("bob-with-a-longer-name", InboxOptions{})
	if err != nil || len(page.Messages) != 1 {
		t.Fatal(page, err)
	}
	id := page.Messages[0].ID
	if _, _, err := f.m.MarkRead(id, "bob-with-a-longer-name"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.Delete(id, "bob-with-a-longer-name"); err != nil {
		t.Fatal(err)
	}
	checkLog(t, f)
}

// checkLog holds every line of the messages log to the rules every version
// obeys.
func checkLog(t *testing.T, f *fixture) {
	t.Helper()
	data, err := os.ReadFile(f.logPath())
	if err != nil {
		t.Fatal(err)
	}
	for l := range jsonline.Lines(data) {
		if e := records.CheckVersion(records.MessagesFile, l.Raw); e != nil {
			t.Errorf("line %d breaks a rule: %v", l.No, e)
		}
	}
}
