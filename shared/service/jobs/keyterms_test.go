package jobs

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestParseKeyterms(t *testing.T) {
	hundred := make([]string, MaxKeyterms)
	for i := range hundred {
		hundred[i] = "term " + strconv.Itoa(i)
	}
	arr := func(terms ...string) string {
		b, _ := json.Marshal(terms)
		return string(b)
	}
	ok := []struct {
		raw  string
		want []string
	}{
		{"", nil},
		{"  \n", nil},
		{"[]", nil},
		{" [ ] ", nil},
		{`["refund"]`, []string{"refund"}},
		// Trimmed; duplicates folded case-insensitively, first spelling kept, order kept.
		{`["  Northwind Energy ", "broadband", "NORTHWIND ENERGY", "Broadband", "router"]`, []string{"Northwind Energy", "broadband", "router"}},
		// The limits themselves are allowed: 50 characters (not bytes), 6 words, 100 terms.
		{arr(strings.Repeat("é", 50), "one two three four five six"), []string{strings.Repeat("é", 50), "one two three four five six"}},
		{arr(hundred...), hundred},
	}
	for _, c := range ok {
		got, err := ParseKeyterms(c.raw)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseKeyterms(%.40q) = %q, %v; want %q", c.raw, got, err, c.want)
		}
	}
	bad := []struct{ raw, says string }{
		{`not json`, "JSON-encoded array of strings"},
		{`{"a": "b"}`, "JSON-encoded array of strings"},
		{`"refund"`, "JSON-encoded array of strings"},
		{`null`, "JSON-encoded array of strings"},
		{`["refund"] x`, "JSON-encoded array of strings"},
		{`["refund", 1]`, "keyterms[1] is not a string"},
		{`[null]`, "keyterms[0] is not a string"},
		{`["a", ""]`, "keyterms[1] is empty"},
		{`[" \t "]`, "keyterms[0] is empty"},
		{arr(strings.Repeat("x", 51)), "keyterms[0] has 51 characters"},
		{arr("one two three four five six seven"), "keyterms[0] has 7 words"},
		{arr(append(slices.Clone(hundred), "one more")...), "holds 101 terms"},
		// 101 entries are refused even when folding would leave 100.
		{arr(append(slices.Clone(hundred), "TERM 0")...), "holds 101 terms"},
		{arr("new\nline"), "control character"},
		{strings.Repeat(" ", MaxKeytermsBytes+1), "longer than"},
	}
	for _, c := range bad {
		_, err := ParseKeyterms(c.raw)
		if !callscribe.IsCode(err, callscribe.CodeInvalidKeyterms) || !strings.Contains(callscribe.ErrorMessage(err), c.says) {
			t.Errorf("ParseKeyterms(%.40q) = %v; want INVALID_KEYTERMS saying %q", c.raw, err, c.says)
		}
	}
}
