package commands

import (
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
)

func TestMsgSendAndReplyOptions(t *testing.T) {
	normal := records.ImportanceNormal
	tests := []struct {
		argv  string
		reply bool
		want  msgSendOptions
		code  int
	}{
		{"send bob", false, msgSendOptions{To: "bob", Importance: normal}, 0},
		{"send bob 'hi'", false, msgSendOptions{To: "bob", Body: "'hi'", BodySet: true, Subject: "'hi'", Importance: normal}, 0},
		{"send --to bob -s subj --body text -i bd-1 --importance high --reply-to qm-1", false,
			msgSendOptions{To: "bob", Subject: "subj", Body: "text", BodySet: true, Issue: "bd-1", ReplyTo: "qm-1", Importance: "high"}, 0},
		{"send --to bob --body-file - ", false, msgSendOptions{To: "bob", BodyFile: "-", Importance: normal}, 0},
		{"--droid ann --json send bob", false, msgSendOptions{G: globals{Droid: "ann", JSON: true}, To: "bob", Importance: normal}, 0},
		{"send", false, msgSendOptions{}, ExitUsage},
		{"send --to bob carl", false, msgSendOptions{}, ExitUsage},
		{"send bob body --body other", false, msgSendOptions{}, ExitUsage},
		{"send bob a b", false, msgSendOptions{}, ExitUsage},
		{"reply qm-7 --body ok", true, msgSendOptions{ReplyTo: "qm-7", Reply: true, Body: "ok", BodySet: true, Importance: normal}, 0},
		{"reply qm-7 -s re --importance urgent", true, msgSendOptions{ReplyTo: "qm-7", Reply: true, Subject: "re", Importance: "urgent"}, 0},
		{"reply", true, msgSendOptions{}, ExitUsage},
		{"reply qm-7 ok", true, msgSendOptions{ReplyTo: "qm-7", Reply: true, Body: "ok", BodySet: true, Importance: normal}, 0},
		{"reply qm-7 a b", true, msgSendOptions{}, ExitUsage},
		{"reply qm-7 ok --body other", true, msgSendOptions{}, ExitUsage},
	}
	for _, tt := range tests {
		build := newMsgSendCmd
		if tt.reply {
			build = newMsgReplyCmd
		}
		expectOptions(t, build, tt.argv, tt.want, tt.code, func(o *msgSendOptions) { o.Env = nil })
	}
}

// The inbox and wait expectations were translated from msgInboxOptions
// and msgWaitOptions to the requests the commands fill, case for case (a
// timeout is the duration string the run function used to pass on).
func TestMsgListAndIDOptions(t *testing.T) {
	inbox := func(e *Env, runF func(call[app.InboxRequest]) error) *cli.Command {
		return newMsgListCmd(e, false, runF)
	}
	sent := func(e *Env, runF func(call[app.InboxRequest]) error) *cli.Command {
		return newMsgListCmd(e, true, runF)
	}
	for _, tt := range []struct {
		argv  string
		build func(*Env, func(call[app.InboxRequest]) error) *cli.Command
		want  call[app.InboxRequest]
		code  int
	}{
		{"inbox", inbox, call[app.InboxRequest]{Req: app.InboxRequest{Limit: 20}}, 0},
		{"--json inbox", inbox, call[app.InboxRequest]{G: globals{JSON: true}}, 0},
		{"--json inbox -n 5", inbox, call[app.InboxRequest]{G: globals{JSON: true}, Req: app.InboxRequest{Limit: 5}}, 0},
		{"inbox --unread --since 2h --limit 0", inbox, call[app.InboxRequest]{Req: app.InboxRequest{Unread: true, Since: "2h"}}, 0},
		{"sent --since 1d", sent, call[app.InboxRequest]{Req: app.InboxRequest{Since: "1d", Limit: 20, Sent: true}}, 0},
		{"sent --unread", sent, call[app.InboxRequest]{}, ExitUsage},
	} {
		expectCall(t, tt.build, tt.argv, tt.want, tt.code)
	}
	read := func(e *Env, runF func(msgReadOptions) error) *cli.Command {
		return newMsgIDCmd(e, "read", "", "a message ID", runF)
	}
	got, ran, code := parseWith(t, read, "read qm-9 --agent bob")
	if got.Env = nil; !ran || code != 0 || !reflect.DeepEqual(got, msgReadOptions{G: globals{Droid: "bob"}, ID: "qm-9"}) {
		t.Errorf("read: exit %d, ran %v, options %+v", code, ran, got)
	}
	if _, ran, code := parseWith(t, read, "read"); ran || code != ExitUsage {
		t.Errorf("read without an ID: exit %d, ran %v; want a usage error", code, ran)
	}
}

func TestMsgWaitOptions(t *testing.T) {
	expectCall(t, newMsgWaitCmd, "wait", call[app.WaitRequest]{}, 0)
	expectCall(t, newMsgWaitCmd, "wait --from bob --thread qb-1 --issue bd-2 --reply-to qm-3 --timeout 10m --peek",
		call[app.WaitRequest]{Req: app.WaitRequest{From: "bob", Thread: "qb-1", Issue: "bd-2", ReplyTo: "qm-3",
			Timeout: "10m0s", Peek: true}}, 0)
	expectCall(t, newMsgWaitCmd, "wait --timeout 0s", call[app.WaitRequest]{}, ExitUsage)
	expectCall(t, newMsgWaitCmd, "wait --timeout later", call[app.WaitRequest]{}, ExitUsage)
	expectCall(t, newMsgWaitCmd, "wait bob", call[app.WaitRequest]{}, ExitUsage)
}
