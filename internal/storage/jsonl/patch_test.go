package jsonl

import (
	"encoding/json"
	"testing"
	"time"
)

func TestSetFields(t *testing.T) {
	readAt := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		line   string
		fields []Field
		want   string
	}{
		{`{"id":"qm-1","read":false,"x-new":{"keep": [1, 2]},"subject":"a<b"}`,
			[]Field{{"read", true}, {"read_at", readAt}},
			`{"id":"qm-1","read":true,"x-new":{"keep": [1, 2]},"subject":"a<b","read_at":"2026-11-22T12:00:00Z"}`},
		{` { "id" : "qm-1" , "\u0072ead" : false } `, []Field{{"read", true}}, `{"id":"qm-1","\u0072ead":true}`},
		{`{}`, []Field{{"deleted", true}, {"note", "a & b"}}, `{"deleted":true,"note":"a & b"}`},
		{`{"released_at":"x"}`, []Field{{"released_at", nil}}, `{"released_at":null}`},
	}
	for _, tt := range tests {
		got, err := SetFields([]byte(tt.line), tt.fields...)
		if err != nil || string(got) != tt.want {
			t.Errorf("SetFields(%s) = %s, %v\nwant %s", tt.line, got, err, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("invalid JSON: %s", got)
		}
	}
	for _, bad := range []string{`[1]`, `{"a":`, `not json`} {
		if _, err := SetFields([]byte(bad), Field{"a", 1}); err == nil {
			t.Errorf("SetFields(%s) succeeded", bad)
		}
	}
}
