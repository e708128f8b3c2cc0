package callscribe

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Search across calls: the list filter q (and speaker), written once here and
// used by every store. A store's index only proposes candidates (SQLite's
// full-text table, DynamoDB's term items); every candidate is confirmed by
// SearchQuery.Find on the job's own stored text, so both stores give the same
// answers, word for word, and a stale or approximate index entry can never
// show a job that does not match.
//
// What a job is searched by (SearchDocumentOf):
//   - a transcription: its result's transcript segments;
//   - a succeeded summary: its topic and summary, plus the text it was made
//     from when that text was sent as transcript_text (no transcription
//     holds it);
//   - a tags job: the text it was made from when sent as transcript_text,
//     for the same reason. A tags job made from a transcription is found
//     through that transcription (its words are the transcription's), and its
//     taxonomy values are not free text.
//
// A job is listed when every term of the query (a word, or a "quoted phrase":
// its words consecutive within one segment) occurs in the document, in any
// segments, case-insensitively and on word boundaries. Words are runs of
// letters and digits; anything else separates them, so "e-mail" written
// without quotes is the phrase "e mail".

// Search limits: a longer query, or one with more words, is refused with
// INVALID_FILTER.
const (
	MaxSearchQueryChars = 200
	MaxSearchWords      = 10
	// MaxSearchMatches is how many matching segments a listed job carries.
	MaxSearchMatches = 3
)

// Fields of a search document (SearchSegment.Field).
const (
	SearchFieldTranscript = "transcript"
	SearchFieldInput      = "input"
	SearchFieldTopic      = "topic"
	SearchFieldSummary    = "summary"
)

// SearchTerm is one word, or the words of a quoted phrase in order.
type SearchTerm struct {
	Words []string
}

// SearchQuery is a parsed q (and speaker) list filter.
type SearchQuery struct {
	Terms []SearchTerm
	// Speaker restricts the search to one speaker's segments (AliasAgent or
	// AliasUser); "" searches everything.
	Speaker string
}

// SearchSegment is one searchable piece of a job: a transcript segment, a
// line of input text, a summary or a topic.
type SearchSegment struct {
	Field string
	// Index is the segment's index in result.transcript, or the line's index
	// in the input text; 0 for a summary or topic.
	Index int
	// TimeStart and TimeEnd are nil where the text has no timing (input text,
	// summaries).
	TimeStart, TimeEnd *float64
	// Speaker is the segment's alias; "" when no speaker is known.
	Speaker string
	Text    string
}

// SearchMatch is a segment in which a listed job matched.
type SearchMatch = SearchSegment

// SearchWords splits text into lower-case words: runs of letters and digits.
func SearchWords(text string) []string {
	var words []string
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, strings.ToLower(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, strings.ToLower(text[start:]))
	}
	return words
}

// ParseSearchQuery parses the q and speaker list parameters. speaker without
// q, a speaker other than Agent or User, an empty query, an unclosed quote and
// a query over the limits are INVALID_FILTER.
func ParseSearchQuery(q, speaker string) (*SearchQuery, error) {
	if q == "" {
		if speaker != "" {
			return nil, Errorf(CodeInvalidFilter, "speaker applies to a search: send it with q.")
		}
		return nil, nil
	}
	query := &SearchQuery{}
	switch strings.ToLower(speaker) {
	case "":
	case "agent":
		query.Speaker = AliasAgent
	case "user":
		query.Speaker = AliasUser
	default:
		return nil, Errorf(CodeInvalidFilter, "speaker must be Agent or User.")
	}
	if utf8.RuneCountInString(q) > MaxSearchQueryChars {
		return nil, Errorf(CodeInvalidFilter, "q is longer than %d characters.", MaxSearchQueryChars)
	}
	if strings.Count(q, `"`)%2 != 0 {
		return nil, Errorf(CodeInvalidFilter, "q has an unclosed quote; quote a phrase as \"like this\".")
	}
	words := 0
	add := func(ws []string) {
		if len(ws) == 0 {
			return
		}
		words += len(ws)
		if !slices.ContainsFunc(query.Terms, func(t SearchTerm) bool { return slices.Equal(t.Words, ws) }) {
			query.Terms = append(query.Terms, SearchTerm{Words: ws})
		}
	}
	// Even parts are outside quotes, odd parts are phrases.
	for i, part := range strings.Split(q, `"`) {
		if i%2 == 1 {
			add(SearchWords(part))
			continue
		}
		// A chunk between spaces that holds several words ("e-mail") is a phrase.
		for _, chunk := range strings.Fields(part) {
			add(SearchWords(chunk))
		}
	}
	if len(query.Terms) == 0 {
		return nil, Errorf(CodeInvalidFilter, "q has no words to search for.")
	}
	if words > MaxSearchWords {
		return nil, Errorf(CodeInvalidFilter, "q has more than %d words.", MaxSearchWords)
	}
	return query, nil
}

// Words returns the distinct words of the query's terms, in order.
func (q *SearchQuery) Words() []string {
	var out []string
	for _, t := range q.Terms {
		for _, w := range t.Words {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// Find reports whether doc matches the query, with the first
// MaxSearchMatches segments where a term occurs.
func (q *SearchQuery) Find(doc []SearchSegment) ([]SearchMatch, bool) {
	found := make([]bool, len(q.Terms))
	var matches []SearchMatch
	for _, seg := range doc {
		if q.Speaker != "" && seg.Speaker != q.Speaker {
			continue
		}
		words := SearchWords(seg.Text)
		hit := false
		for i, t := range q.Terms {
			if containsRun(words, t.Words) {
				found[i], hit = true, true
			}
		}
		if hit && len(matches) < MaxSearchMatches {
			matches = append(matches, seg)
		}
	}
	if slices.Contains(found, false) {
		return nil, false
	}
	return matches, true
}

// containsRun reports whether run occurs in words as consecutive words.
func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// SearchDocumentOf returns what j is searched by (see the package doc
// above); nil when it has nothing searchable (no result yet, a failed job).
func SearchDocumentOf(j *Job) []SearchSegment {
	var doc []SearchSegment
	switch j.Type.OrDefault() {
	case TypeTranscription:
		if j.Status != StatusSucceeded || len(j.Result) == 0 {
			return nil
		}
		var r struct {
			Transcript []struct {
				Text         string  `json:"text"`
				TimeStart    float64 `json:"time_start"`
				TimeEnd      float64 `json:"time_end"`
				SpeakerAlias string  `json:"speaker_alias"`
			} `json:"transcript"`
		}
		if json.Unmarshal(j.Result, &r) != nil {
			return nil
		}
		for i, s := range r.Transcript {
			start, end := s.TimeStart, s.TimeEnd
			doc = append(doc, SearchSegment{Field: SearchFieldTranscript, Index: i, TimeStart: &start, TimeEnd: &end, Speaker: s.SpeakerAlias, Text: s.Text})
		}
		return doc
	case TypeSummary:
		// A summary is searched once it has one; until then the text it was
		// made from is not indexed either (one index write per summary).
		if j.Status != StatusSucceeded || len(j.Result) == 0 {
			return nil
		}
		// SummaryResult's two texts only: its meta_data is not decoded.
		var r struct {
			Topic   *string `json:"topic"`
			Summary string  `json:"summary"`
		}
		if json.Unmarshal(j.Result, &r) == nil {
			if r.Topic != nil && *r.Topic != "" {
				doc = append(doc, SearchSegment{Field: SearchFieldTopic, Text: *r.Topic})
			}
			if r.Summary != "" {
				doc = append(doc, SearchSegment{Field: SearchFieldSummary, Text: r.Summary})
			}
		}
	}
	if j.SourceJobID == "" && j.Input != nil && j.Input.Text != "" {
		doc = append(doc, inputLines(j.Input.Text)...)
	}
	return doc
}

// inputLines splits transcript text into one segment per speaker turn: a
// line, or the part of a line from one "Agent:"/"User:" marker to the next
// (text often puts a whole call on one line). Text before any marker has no
// speaker.
func inputLines(text string) []SearchSegment {
	var doc []SearchSegment
	for i, line := range strings.Split(text, "\n") {
		speaker, from := "", 0
		add := func(to int) {
			if part := strings.TrimSpace(line[from:to]); part != "" {
				doc = append(doc, SearchSegment{Field: SearchFieldInput, Index: i, Speaker: speaker, Text: part})
			}
		}
		for at := 0; ; {
			start, alias, end := nextSpeakerMark(line, at)
			if start < 0 {
				break
			}
			add(start)
			speaker, from, at = alias, end, end
		}
		add(len(line))
	}
	return doc
}

// nextSpeakerMark finds the first "Agent:" or "User:" marker (any case,
// spaces allowed before the colon, a whole word) at or after from: where it
// starts, its alias, and where the text after it starts; start is -1 when
// there is none.
func nextSpeakerMark(line string, from int) (start int, alias string, end int) {
	for {
		c := strings.IndexByte(line[from:], ':')
		if c < 0 {
			return -1, "", 0
		}
		colon := from + c
		w := strings.TrimRight(line[:colon], " \t")
		for _, m := range [...]struct{ word, alias string }{{"agent", AliasAgent}, {"user", AliasUser}} {
			if len(w) < len(m.word) || !strings.EqualFold(w[len(w)-len(m.word):], m.word) {
				continue
			}
			begin := len(w) - len(m.word)
			if begin > 0 {
				if r, _ := utf8.DecodeLastRuneInString(w[:begin]); unicode.IsLetter(r) || unicode.IsDigit(r) {
					continue
				}
			}
			return begin, m.alias, colon + 1
		}
		from = colon + 1
	}
}
