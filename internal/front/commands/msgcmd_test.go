package commands

import (
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
)

// The expectations were translated from the one msgSendOptions both
// commands had to each one's request and body source, case for case: a
// send's recipient, subject, issue, reply-to and importance are its
// SendRequest's; a reply's ID is its ReplyRequest's ID; the body given is
// the request's Body, BodySet and BodyFile the body source's Set and File.
func TestMsgSendAndReplyOptions(t *testing.T) {
	normal := records.ImportanceNormal
	type req = app.SendRequest
	send := func(g globals, r req, body bodySource) msgSendOptions {
		return msgSendOptions{call: call[req]{G: g, Req: r}, Body: body}
	}
	sendTests := []struct {
		argv string
		want msgSendOptions
		code int
	}{
		{"send bob", send(globals{}, req{To: "bob", Importance: normal}, bodySource{}), 0},
		{"send bob 'hi'", send(globals{}, req{To: "bob", Body: "'hi'", Subject: "'hi'", Importance: normal}, bodySource{Set: true}), 0},
		{"send --to bob -s subj --body text -i bd-1 --importance high --reply-to qm-1",
			send(globals{}, req{To: "bob", Subject: "subj", Body: "text", Issue: "bd-1", ReplyTo: "qm-1", Importance: "high"}, bodySource{Set: true}), 0},
		{"send --to bob --body-file - ", send(globals{}, req{To: "bob", Importance: normal}, bodySource{File: "-"}), 0},
		{"--droid ann --json send bob", send(globals{Droid: "ann", JSON: true}, req{To: "bob", Importance: normal}, bodySource{}), 0},
		{"send", msgSendOptions{}, ExitUsage},
		{"send --to bob carl", msgSendOptions{}, ExitUsage},
		{"send bob body --body other", msgSendOptions{}, ExitUsage},
		{"send bob a b", msgSendOptions{}, ExitUsage},
	}
	for _, tt := range sendTests {
		expectOptions(t, newMsgSendCmd, tt.argv, tt.want, tt.code, func(o *msgSendOptions) { o.Env = nil })
	}
	reply := func(r app.ReplyRequest, body bodySource) msgReplyOptions {
		return msgReplyOptions{call: call[app.ReplyRequest]{Req: r}, Body: body}
	}
	replyTests := []struct {
		argv string
		want msgReplyOptions
		code int
	}{
		{"reply qm-7 --body ok", reply(app.ReplyRequest{ID: "qm-7", Body: "ok", Importance: normal}, bodySource{Set: true}), 0},
		{"reply qm-7 -s re --importance urgent", reply(app.ReplyRequest{ID: "qm-7", Subject: "re", Importance: "urgent"}, bodySource{}), 0},
		{"reply", msgReplyOptions{}, ExitUsage},
		{"reply qm-7 ok", reply(app.ReplyRequest{ID: "qm-7", Body: "ok", Importance: normal}, bodySource{Set: true}), 0},
		{"reply qm-7 a b", msgReplyOptions{}, ExitUsage},
		{"reply qm-7 ok --body other", msgReplyOptions{}, ExitUsage},
	}
	for _, tt := range replyTests {
		expectOptions(t, newMsgReplyCmd, tt.argv, tt.want, tt.code, func(o *msgReplyOptions) { o.Env = nil })
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
	read := func(e *Env, runF func(call[app.MessageRequest]) error) *cli.Command {
		return newMsgIDCmd(e, "read", "", "a message ID", runF)
	}
	// Translated from msgReadOptions' ID to the MessageRequest's.
	got, ran, code := parseWith(t, read, "read qm-9 --agent bob")
	if got.Env = nil; !ran || code != 0 || !reflect.DeepEqual(got, call[app.MessageRequest]{G: globals{Droid: "bob"}, Req: app.MessageRequest{ID: "qm-9"}}) {
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
