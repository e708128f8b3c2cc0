package jobs

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// ParseKeyterms validates an upload's keyterms field: a JSON-encoded array of
// strings (like metadata is a JSON-encoded object), blank or [] for none. The
// array holds at most MaxKeyterms entries as sent; each entry, trimmed of
// surrounding white space, is 1 to MaxKeytermChars characters and at most
// MaxKeytermWords words (runs of non-space). Entries that differ only in case
// are one term: the first spelling is kept, in the order sent. Anything else
// is INVALID_KEYTERMS with a message naming the rule (and the entry) that
// failed. The result is nil when there are no terms.
func ParseKeyterms(raw string) ([]string, error) {
	if len(raw) > MaxKeytermsBytes {
		return nil, invalidKeyterms("keyterms is longer than %d bytes.", MaxKeytermsBytes)
	}
	trimmed := bytes.TrimSpace([]byte(raw))
	if len(trimmed) == 0 {
		return nil, nil
	}
	var items []json.RawMessage
	if trimmed[0] != '[' || json.Unmarshal(trimmed, &items) != nil {
		return nil, invalidKeyterms("keyterms must be a JSON-encoded array of strings, e.g. [\"Northwind Energy\", \"broadband\"].")
	}
	if len(items) > MaxKeyterms {
		return nil, invalidKeyterms("keyterms holds %d terms; at most %d are allowed.", len(items), MaxKeyterms)
	}
	var terms []string
	seen := map[string]bool{}
	for i, item := range items {
		var term string
		// (Unmarshal leaves a string alone for null, so check the shape first.)
		if len(item) == 0 || item[0] != '"' || json.Unmarshal(item, &term) != nil {
			return nil, invalidKeyterms("keyterms[%d] is not a string; keyterms must be an array of strings.", i)
		}
		term = strings.TrimSpace(term)
		n := utf8.RuneCountInString(term)
		switch {
		case n == 0:
			return nil, invalidKeyterms("keyterms[%d] is empty; each term must have 1 to %d characters.", i, MaxKeytermChars)
		case n > MaxKeytermChars:
			return nil, invalidKeyterms("keyterms[%d] has %d characters; each term must have 1 to %d.", i, n, MaxKeytermChars)
		}
		if words := len(strings.Fields(term)); words > MaxKeytermWords {
			return nil, invalidKeyterms("keyterms[%d] has %d words; each term may have at most %d.", i, words, MaxKeytermWords)
		}
		for _, r := range term {
			if r < 0x20 || r == 0x7f {
				return nil, invalidKeyterms("keyterms[%d] contains a control character.", i)
			}
		}
		key := strings.ToLower(term)
		if seen[key] {
			continue
		}
		seen[key] = true
		terms = append(terms, term)
	}
	return terms, nil
}

func invalidKeyterms(format string, args ...any) error {
	return callscribe.Errorf(callscribe.CodeInvalidKeyterms, format, args...)
}
