package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheckSegmentSentiment(t *testing.T) {
	for _, c := range []struct {
		segment string
		ok      bool
	}{
		{`{"text":"hi"}`, true}, // none computed
		{`{"sentiment":{"label":"positive","score":0.6}}`, true},
		{`{"sentiment":{"label":"neutral","score":-0.1}}`, true},
		{`{"sentiment":{"label":"negative","score":-1}}`, true},
		{`{"sentiment":"positive"}`, false},
		{`{"sentiment":{"label":"mixed","score":0}}`, false},
		{`{"sentiment":{"label":"positive","score":1.5}}`, false},
		{`{"sentiment":{"label":"positive"}}`, false},
		{`{"sentiment":{"label":"positive","score":-0.3}}`, false},
		{`{"sentiment":{"label":"negative","score":0.2}}`, false},
	} {
		d := json.NewDecoder(bytes.NewReader([]byte(c.segment)))
		d.UseNumber()
		var seg map[string]any
		if err := d.Decode(&seg); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{TB: t}
		checkSegmentSentiment(rec, &Response{Method: "GET", Path: "/v1/transcriptions/x"}, 0, seg)
		if ok := len(rec.errs) == 0; ok != c.ok {
			t.Errorf("%s: passed %v, want %v (%q)", c.segment, ok, c.ok, rec.errs)
		}
	}
}
