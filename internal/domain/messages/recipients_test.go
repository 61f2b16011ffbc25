package messages

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
)

// TestRecipients sends, as a person types names, to droids the repository
// has seen (by messages, or only in the roster) and to names it has not.
func TestRecipients(t *testing.T) {
	tests := []struct {
		name    string
		to      string
		new     bool
		want    []string // recipients, in order
		unknown []string // refused names
		near    map[string][]string
		usage   bool // another usage error
	}{
		{name: "one known droid", to: "bob", want: []string{"bob"}},
		{name: "a comma list", to: "bob,cat", want: []string{"bob", "cat"}},
		{name: "spaces and repeats", to: " cat , bob,cat,", want: []string{"cat", "bob"}},
		{name: "a typo", to: "bobb", unknown: []string{"bobb"}, near: map[string][]string{"bobb": {"bob"}}},
		{name: "a transposition", to: "obb", unknown: []string{"obb"}, near: map[string][]string{"obb": {"bob"}}},
		{name: "case", to: "Cat", unknown: []string{"Cat"}, near: map[string][]string{"Cat": {"cat"}}},
		{name: "nothing near", to: "zed", unknown: []string{"zed"}},
		{name: "one typo in a list sends nothing", to: "bob,catt", unknown: []string{"catt"}, near: map[string][]string{"catt": {"cat"}}},
		{name: "meant with --new", to: "dan", new: true, want: []string{"dan"}},
		{name: "a list with a new droid", to: "bob,dan", new: true, want: []string{"bob", "dan"}},
		{name: "listed in the roster", to: "eve", want: []string{"eve"}},
		{name: "the sender itself", to: "ann", want: []string{"ann"}},
		{name: "@all", to: "@all", want: []string{"bob", "cat", "eve", "the,team"}},
		{name: "@all and a new droid", to: "@all,dan", new: true, want: []string{"bob", "cat", "eve", "the,team", "dan"}},
		{name: "a known name with a comma is one droid", to: "the,team", want: []string{"the,team"}},
		{name: "an empty list", to: " , ", usage: true},
		{name: "a bad name", to: "bob,@cat", usage: true},
		{name: "too many", to: strings.Repeat("bob,", MaxRecipients+1), usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.send(t, Draft{From: "bob", To: "cat", Subject: "hello"})
			f.send(t, Draft{From: "the,team", To: "bob", Subject: "from before lists"})
			f.roster(t, "[validate]\nlimit = 10\n\n[droids]\nnames = [\"eve\"]\n")
			before := len(f.inboxAll(t))
			sent, err := f.m.Send(Draft{From: "ann", To: tt.to, Subject: "q", CheckRecipients: true, NewRecipients: tt.new})
			var unknown *UnknownRecipientError
			var invalid *records.InvalidError
			switch {
			case tt.unknown != nil:
				if !errors.As(err, &unknown) || !errors.As(err, &invalid) {
					t.Fatalf("sent %v, %v; want an UnknownRecipientError, a usage error", sent, err)
				}
				if !slices.Equal(unknown.Names, tt.unknown) {
					t.Errorf("unknown %v, want %v", unknown.Names, tt.unknown)
				}
				for n, want := range tt.near {
					if !slices.Equal(unknown.Near[n], want) {
						t.Errorf("near %s: %v, want %v", n, unknown.Near[n], want)
					}
					if !strings.Contains(err.Error(), "did you mean "+want[0]) {
						t.Errorf("message %q does not suggest %s", err, want[0])
					}
				}
				if len(tt.near) == 0 && !strings.Contains(err.Error(), "known droids: bob, cat, eve, the,team") {
					t.Errorf("message %q does not list the known droids", err)
				}
				if !strings.Contains(err.Error(), "new=true") {
					t.Errorf("message %q does not say how to mean it", err)
				}
				if after := len(f.inboxAll(t)); after != before {
					t.Errorf("a refused send wrote %d messages", after-before)
				}
			case tt.usage:
				if !errors.As(err, &invalid) || errors.As(err, &unknown) {
					t.Fatalf("sent %v, %v; want a usage error", sent, err)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				var to []string
				for _, m := range sent {
					to = append(to, m.To)
					if m.ThreadID != sent[0].ID {
						t.Errorf("copy to %s is in thread %s, not %s", m.To, m.ThreadID, sent[0].ID)
					}
				}
				if !slices.Equal(to, tt.want) {
					t.Errorf("sent to %v, want %v", to, tt.want)
				}
			}
		})
	}
}

// Without CheckRecipients (a notification to a holder the store just
// read) any valid name is sent to, as one name; a reply goes to its sender's name as
// the record spells it, even one with a comma.
func TestRecipientsUncheckedAndReplies(t *testing.T) {
	f := newFixture(t)
	if sent, err := f.m.Send(Draft{From: "ann", To: "dan", Subject: "unchecked"}); err != nil || len(sent) != 1 || sent[0].To != "dan" {
		t.Fatalf("unchecked send: %v, %v", sent, err)
	}
	if sent, err := f.m.Send(Draft{From: "ann", To: "p,q", Subject: "unchecked, one name"}); err != nil || len(sent) != 1 || sent[0].To != "p,q" {
		t.Fatalf("unchecked send to a name with a comma: %v, %v", sent, err)
	}
	root := f.send(t, Draft{From: "x,y", To: "ann", Subject: "a name with a comma"})
	sent, err := f.m.Reply(root.ID, Draft{From: "ann", CheckRecipients: true})
	if err != nil || len(sent) != 1 || sent[0].To != "x,y" {
		t.Fatalf("reply: %v, %v", sent, err)
	}
}

// A roster that does not parse, or names something that is no droid,
// stops only a send that needs it, naming the file.
func TestRosterErrors(t *testing.T) {
	for _, content := range []string{"[droids\nnames = 1", "[droids]\nnames = [\"@x\"]\n", "[droids]\nnames = \"ann\"\n"} {
		f := newFixture(t)
		f.send(t, Draft{From: "bob", To: "cat", Subject: "hello"})
		roster := f.roster(t, content)
		if _, err := f.m.Send(Draft{From: "ann", To: "bob", Subject: "q", CheckRecipients: true}); err != nil {
			t.Errorf("%q: a send to a known droid needs no roster: %v", content, err)
		}
		if _, err := f.m.Send(Draft{From: "ann", To: "eve", Subject: "q", CheckRecipients: true}); err == nil || !strings.Contains(err.Error(), roster) {
			t.Errorf("%q: %v; want an error naming %s", content, err, roster)
		}
	}
}

// inboxAll counts every message in the log's current versions.
func (f *fixture) inboxAll(t *testing.T) []records.Message {
	t.Helper()
	var all []records.Message
	for _, d := range []string{"ann", "bob", "cat", "dan", "eve", "the,team"} {
		page, err := f.m.Inbox(d, InboxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Messages...)
	}
	return all
}

// roster writes .beads/queen.toml in the fixture's worktree, where the
// store finds it, and returns its path.
func (f *fixture) roster(t *testing.T, content string) string {
	t.Helper()
	dir := filepath.Join(f.m.S.WS.Repo.TopLevel, ".beads")
	path := filepath.Join(dir, schema.ConfigFile)
	writeFile(t, path, content)
	f.m.S.WS.BeadsDir = dir // as the workspace finds it once the directory exists
	return path
}

// namedIn finds a droid in the fields that name droids only, wherever its
// line falls among the chunks it searches, including across a boundary
// (they are counted from the end of the log).
func TestNamedIn(t *testing.T) {
	fields := []string{"from", "to"}
	mention := `{"id":"qm-x","from":"ann","to":"bob","subject":"zed is mentioned here, \"zed\" too"}` + "\n"
	named := `{"id":"qm-y","from":"zed","to":"bob"}` + "\n"
	quoted := []byte(`"zed"`)
	q := strings.Index(named, `"zed"`)
	// block is n bytes of lines that mention zed without naming it.
	block := func(n int) string {
		var b strings.Builder
		for b.Len()+len(mention)+20 < n {
			b.WriteString(mention)
		}
		pad := n - b.Len() - len(`{"pad":""}`+"\n")
		b.WriteString(`{"pad":"` + strings.Repeat("p", pad) + `"}` + "\n")
		return b.String()
	}
	for _, shift := range []int{-5, -4, -2, -1, 0, 1, seenChunk / 2} {
		// The quoted name starts shift bytes after the boundary between
		// the last chunk and the one before.
		prefix := block(5000)
		suffix := block(seenChunk + q - shift - len(named))
		log := prefix + named + suffix
		if boundary := len(log) - seenChunk; boundary+shift != len(prefix)+q {
			t.Fatalf("shift %d: the name is at %d, the boundary at %d", shift, len(prefix)+q, boundary)
		}
		path := filepath.Join(t.TempDir(), "log.jsonl")
		writeFile(t, path, log)
		if ok, err := namedIn(path, quoted, "zed", fields); err != nil || !ok {
			t.Errorf("shift %d: %v, %v", shift, ok, err)
		}
		writeFile(t, path, prefix+block(len(named))+suffix)
		if ok, err := namedIn(path, quoted, "zed", fields); err != nil || ok {
			t.Errorf("only mentioned: %v, %v", ok, err)
		}
	}
	if ok, err := namedIn(filepath.Join(t.TempDir(), "none"), quoted, "zed", fields); err != nil || ok {
		t.Errorf("no log: %v, %v", ok, err)
	}
}

// @all to more droids than a team has (a remote's ledger can name them by
// the thousand) with a long body is refused whole, writing nothing, where
// it wrote a copy to each: hundreds of megabytes that the next sync
// pushed. The same broadcast with a short body goes out.
func TestABroadcastIsBoundedInBytes(t *testing.T) {
	f := newFixture(t)
	const droids = 120
	for i := range droids {
		f.send(t, Draft{From: fmt.Sprintf("d%d", i), To: "ann", Subject: "hello"})
	}
	before := logSize(t, f)
	long := strings.Repeat("y", records.MaxNewLineBytes-5000)
	sent, err := f.m.Send(Draft{From: "ann", To: "@all", Subject: "all hands", Body: long, CheckRecipients: true})
	var invalid *records.InvalidError
	if !errors.As(err, &invalid) || !strings.Contains(err.Error(), fmt.Sprintf("@all reaches %d droids", droids)) {
		t.Fatalf("a long broadcast to %d droids: sent %d, %v; want a usage error naming the count", droids, len(sent), err)
	}
	if after := logSize(t, f); after != before {
		t.Fatalf("the refused broadcast wrote %d bytes", after-before)
	}
	sent, err = f.m.Send(Draft{From: "ann", To: "@all", Subject: "all hands", Body: "short", CheckRecipients: true})
	if err != nil || len(sent) != droids {
		t.Fatalf("a short broadcast: sent %d, %v; want %d copies", len(sent), err, droids)
	}
}

// logSize is the size of the fixture's messages log.
func logSize(t *testing.T, f *fixture) int64 {
	t.Helper()
	info, err := os.Stat(f.logPath())
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
