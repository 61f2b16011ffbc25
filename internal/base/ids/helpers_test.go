package ids

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// Time is the creation time encoded in a ULID id.
func Time(u ulid.ULID) time.Time { return ulid.Time(u.Time()) }
