package records

import (
	"encoding/json"
	"reflect"
	"testing"
)

// DecodeMessage must give exactly what encoding/json gives, value or error.
func TestDecodeMessageMatchesEncodingJSON(t *testing.T) {
	lines := []string{
		`{"id":"qm-1","created_at":"2026-11-22T12:00:00.123Z","updated_at":"2026-11-22T12:00:01Z","from":"ann","to":"bob","subject":"s","body":"line\nbreak \"q\" \u00e9","issue_id":"qb-1","reply_to":"qm-0","thread_id":"qb-1","importance":"high","read":true,"read_at":"2026-11-22T12:01:00+02:00","deleted":false,"updated_by":"bob","extra":[1,2]}`,
		`{"id":"qm-2","created_at":"2026-11-22T12:00:00Z","from":"ann","to":"bob","subject":"s","body":"","importance":"normal","read":false}`,
		`{"id":"qm-3","created_at":"2026-11-22T12:00:00Z","updated_at":null,"read_at":null,"issue_id":null}`,
		`{"id":7}`,
		`{"id":"qm-4","created_at":"yesterday"}`,
		`{"id":"qm-5","read":"yes"}`,
		`{"id":"qm-6","created_at":"2026-11-22T12:00:00Z"`,
		`[]`,
	}
	for _, l := range lines {
		var want Message
		wantErr := json.Unmarshal([]byte(l), &want)
		got, err := DecodeMessage([]byte(l))
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, encoding/json says %v", l, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", l, got, want)
		}
	}
}

// DecodeReservation must give exactly what encoding/json gives.
func TestDecodeReservationMatchesEncodingJSON(t *testing.T) {
	lines := []string{
		`{"id":"qr-1","created_at":"2026-11-22T12:00:00.123Z","updated_at":"2026-11-22T12:00:01Z","expires_at":"2026-11-22T14:00:00Z","pattern":"src/**","droid":"ann","issue_id":"qb-1","status":"active","exclusive":true,"reason":"r \"q\" \u00e9","updated_by":"b\u00e9","forced":true,"extra":{"a":[1]}}`,
		`{"id":"qr-2","created_at":"2026-11-22T12:00:00Z","expires_at":"2026-11-22T14:00:00+02:00","released_at":"2026-11-22T13:00:00Z","pattern":"a","droid":"bob","status":"released","exclusive":false}`,
		`{"id":"qr-3","updated_at":null,"released_at":null,"issue_id":null,"exclusive":null}`,
		`{"id":"qr-4","expires_at":"soon"}`,
		`{"id":"qr-5","exclusive":"yes"}`,
		`{"id":"qr-6","pattern":7}`,
		`{"id":"qr-7"`,
		`"x"`,
	}
	for _, l := range lines {
		var want Reservation
		wantErr := json.Unmarshal([]byte(l), &want)
		got, err := DecodeReservation([]byte(l))
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, encoding/json says %v", l, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", l, got, want)
		}
	}
}
