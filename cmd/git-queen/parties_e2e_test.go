package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// Mallory pushes later versions of ann's reservation and of ann's message
// to bob under their own ids that name carl: as holder of the
// reservation, as recipient of the message. Each says it was written by
// its new holder, so the authorship rule passes it; it took ann's paths
// and bob's message without a forced change, on every clone that synced.
// Every clone that holds the record sets such a version aside.
func TestAVersionCannotGiveARecordToAnotherDroid(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	h := newHostileTeam(t, r)
	var held reservationRow
	for _, row := range allReservations(t, h.ann, "ann") {
		if row.Droid == "ann" && row.Pattern == "docs/**" {
			held = row
		}
	}
	msgs := inbox(t, h.bob, "bob")
	if held.ID == "" || len(msgs) != 1 {
		t.Fatalf("ann's reservation %+v and bob's inbox %+v after the setup", held, msgs)
	}
	later := time.Now().Add(time.Second)
	var m map[string]any
	if err := json.Unmarshal([]byte(messageLine(msgs[0].ID, "ann", "carl", msgs[0].Subject, later)), &m); err != nil {
		t.Fatal(err)
	}
	m["updated_by"] = "carl"
	msg, _ := json.Marshal(m)
	res := strings.Replace(reservationLine(held.ID, "carl", "docs/**", later, time.Hour), `"droid":"carl"`, `"droid":"carl","updated_by":"carl"`, 1)
	good := h.honest()
	h.push(h.commit(h.tree(
		"100644,"+h.object("blob", []byte(res+"\n"))+","+chunkPath("reservations"),
		"100644,"+h.object("blob", append(msg, '\n'))+","+chunkPath("messages")), good), "refs/queen/ledger")
	// bob checks ann's paths are still hers, and that her message is in
	// his inbox; the sync names the rule.
	h.honestStillWork("a reservation and a message given to carl", "parties rule")
	for _, row := range allReservations(t, h.ann, "ann") {
		if row.ID == held.ID && (row.Droid != "ann" || !row.Active) {
			t.Errorf("ann's own clone holds her reservation as %v", row)
		}
	}
	if got := inbox(t, h.bob, "bob"); len(got) == 0 || got[0].ID != msgs[0].ID || got[0].To != "bob" {
		t.Errorf("bob's inbox after the sync: %+v; want ann's message %s to bob", got, msgs[0].ID)
	}
	// A clone that joins after the push holds neither version: it judges
	// the later one by the first, as the clones that held it did.
	dave := testgit.Clone(t, r)
	join := gitQueen(t, dave, "dave", "init", "--droid", "dave", "--remote", "origin")
	if join.code != 0 || !strings.Contains(join.stdout+join.stderr, "parties") {
		t.Errorf("a clone joining after the push does not name rule parties:\n%s", describeRun([]string{"init"}, join))
	}
	for _, row := range allReservations(t, dave, "dave") {
		if row.ID == held.ID && (row.Droid != "ann" || !row.Active) {
			t.Errorf("a clone joining after the push holds ann's reservation as %v", row)
		}
	}
	if got := inbox(t, dave, "bob"); len(got) == 0 || got[0].ID != msgs[0].ID || got[0].To != "bob" {
		t.Errorf("bob's inbox in a clone joining after the push: %+v; want ann's message %s to bob", got, msgs[0].ID)
	}
}
