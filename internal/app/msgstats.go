package app

import (
	"fmt"
	"time"

	"github.com/git-queen/git-queen/internal/domain/messages"
)

// MsgStatsRequest says from when to count new messages too.
type MsgStatsRequest struct {
	Since string `json:"since,omitempty" jsonschema:"also count the messages newer than this: a duration (2h, 3d) or a date (2026-11-01)"`
}

// MsgStatsResult is the counts of every droid's messages, in QueenBee's
// msg stats fields (by_agent counts per recipient), and the lines that
// could not be read. Since is set when the request gave one.
type MsgStatsResult struct {
	messages.Stats
	Since    *time.Time `json:"since,omitempty"`
	Problems []Problem  `json:"problems"`
}

// MsgStats counts the messages of the store, every droid's, as QueenBee's
// msg stats does.
var MsgStats = UseCase[MsgStatsRequest, *MsgStatsResult]{Name: "msg stats", run: msgStats}

func msgStats(e *Env, r MsgStatsRequest) (*MsgStatsResult, error) {
	since, err := ParseSince(e.Now(), r.Since)
	if err != nil {
		return nil, &UsageError{Command: "msg stats", Msg: fmt.Sprintf("--since: %v", err)}
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	st, err := (&messages.Store{S: s}).Stats(since)
	if err != nil {
		return nil, err
	}
	res := &MsgStatsResult{Stats: st, Problems: Problems(st.Problems)}
	if !since.IsZero() {
		res.Since = &since
	}
	return res, nil
}
