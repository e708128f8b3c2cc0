package insights

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// SummarizerMethod names the built-in summarizer in meta_data.
const SummarizerMethod = "builtin-extractive-v2" // v2: the outcome sentence names the taxonomy value

// Summarizer is the built-in callscribe.Summarizer: it runs the tagger's
// analysis (lexicon and trained model, so summary and tags agree) and writes
// sentences from templates (why the customer called, what the agent did, how
// it ended, how the customer came across), quoting the
// sentences of the call that carried the evidence, so that the summary is
// faithful to the call even when the speech engine's text is rough.
type Summarizer struct{ m *model }

// NewSummarizer returns the built-in summarizer over the embedded lexicon.
func NewSummarizer() *Summarizer { return &Summarizer{m: defaultModel} }

var _ callscribe.Summarizer = (*Summarizer)(nil)

const maxQuoteWords = 18

// Summarize never fails on content; an empty transcript gets a summary saying so.
func (s *Summarizer) Summarize(ctx context.Context, tr callscribe.Transcript) (*callscribe.SummaryResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := s.m.analyze(tr)
	meta := map[string]any{"method": SummarizerMethod, "lexicon_version": s.m.version}
	for k, v := range a.sizes() {
		meta[k] = v
	}
	if len(a.toks) == 0 {
		topic := "Empty call"
		return &callscribe.SummaryResult{Topic: &topic, Summary: "The transcript contains no words, so there is nothing to summarise.", MetaData: meta}, nil
	}

	reasons := a.cats[callscribe.CategoryCallReason].selected
	if len(reasons) == 0 {
		reasons = []string{"other"}
	}
	approaches := a.cats[callscribe.CategoryAgentApproach].selected
	// Without evidence the outcome and the sentiment are the taxonomy defaults,
	// as in the tagger's result, so the summary and the tags agree.
	outcome := first(a.cats[callscribe.CategoryCallOutcome].selected, taxonomyDefault(callscribe.CategoryCallOutcome))
	sentiment := first(a.cats[callscribe.CategoryCustomerSentiment].selected, taxonomyDefault(callscribe.CategoryCustomerSentiment))
	meta["call_reason"], meta["call_outcome"], meta["customer_sentiment"] = reasons, outcome, sentiment

	topic := s.topic(a, reasons[0])
	var sentences []string

	// Why the customer called.
	why := "The customer called about " + joinAnd(s.phrases(callscribe.CategoryCallReason, reasons))
	if q := s.reasonQuote(a, reasons[0]); q != "" {
		why += `, saying "` + q + `"`
	}
	sentences = append(sentences, why+".")

	// What the agent did.
	if len(approaches) > 0 {
		did := "The agent " + joinAnd(s.phrases(callscribe.CategoryAgentApproach, approaches))
		if q := s.agentQuote(a); q != "" {
			did += ` ("` + q + `")`
		}
		sentences = append(sentences, did+".")
	}

	// How it ended, in the taxonomy's words (OutcomeSentence), and how the
	// customer came across.
	sentences = append(sentences, OutcomeSentence(outcome))
	sentences = append(sentences, "The customer sounded "+s.m.cats[callscribe.CategoryCustomerSentiment].spec.Values[sentiment].Phrase+".")

	return &callscribe.SummaryResult{Topic: &topic, Summary: strings.Join(sentences, " "), MetaData: meta}, nil
}

// topic is the primary reason's label, sharpened by its strongest cue when that
// says more than the label ("Billing: charged twice"). The label comes first, so
// TopicReason reads the primary reason from it.
func (s *Summarizer) topic(a *analysis, reason string) string {
	label := s.m.cats[callscribe.CategoryCallReason].spec.Values[reason].Label
	vs := a.cats[callscribe.CategoryCallReason].scores[reason]
	if vs == nil {
		return label
	}
	ev := vs.evidence(1)
	if len(ev) == 0 {
		return label
	}
	cue, _, _ := strings.Cut(ev[0], " ×")
	if !contentPhrase(cue) || strings.EqualFold(cue, label) || strings.Contains(strings.ToLower(label), strings.ToLower(cue)) {
		return label
	}
	return label + ": " + cue
}

// functionWords cannot stand in a topic label: a cue such as "end my", "love
// the" or "didn't make" matches the lexicon but names nothing on its own.
var functionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`i me my mine you your yours we us our it its they them their he him his she her
		this that these those the a an of to in on at for with from by about into up out
		is are was were be been being am do does did have has had can could will would should may might must
		not no nor and or but if so any some what how why when where which who
		don't didn't doesn't haven't hasn't hadn't isn't aren't wasn't weren't can't cannot won't wouldn't couldn't shouldn't`) {
		functionWords[w] = true
	}
}

// contentPhrase reports whether a cue reads as a label on its own: at least two
// words, none of them a function word ("charged twice", "card stolen").
func contentPhrase(cue string) bool {
	words := strings.Fields(strings.ToLower(cue))
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		if functionWords[strings.Trim(w, ".,!?;:")] {
			return false
		}
	}
	return true
}

func (s *Summarizer) phrases(cat string, values []string) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		if p := s.m.cats[cat].spec.Values[v].Phrase; p != "" {
			out = append(out, p)
		}
	}
	return out
}

// reasonQuote is the customer's sentence with the first cue of the primary
// reason: usually where the customer says why they called.
func (s *Summarizer) reasonQuote(a *analysis, reason string) string {
	vs := a.cats[callscribe.CategoryCallReason].scores[reason]
	if vs == nil {
		return ""
	}
	for _, m := range vs.matches {
		if !a.known || a.toks[m.start].speaker == speakerUser {
			return quote(a.toks, m)
		}
	}
	return ""
}

// agentQuote is the agent's sentence carrying the strongest evidence of acting
// on the request (a fix, an explanation or an escalation).
func (s *Summarizer) agentQuote(a *analysis) string {
	r := a.cats[callscribe.CategoryAgentApproach]
	var best *match
	for _, v := range []string{"solution_oriented", "escalating", "informative"} {
		vs := r.scores[v]
		if vs == nil {
			continue
		}
		for i := range vs.matches {
			m := &vs.matches[i]
			if a.known && a.toks[m.start].speaker != speakerAgent {
				continue
			}
			// Later evidence wins ties: what the agent finally did.
			if best == nil || m.weight >= best.weight {
				best = m
			}
		}
	}
	if best == nil {
		return ""
	}
	q := quote(a.toks, *best)
	if strings.Count(q, " ") < 3 {
		return "" // too short to say anything on its own
	}
	return q
}

// quote returns the sentence around a match (bounded by punctuation in written
// text, by the turn in speech output), cut to a window around the match when
// long, without sentence punctuation.
func quote(toks []token, m match) string {
	lo, hi := m.start, m.end
	for lo > 0 && toks[lo-1].sentence == toks[m.start].sentence {
		lo--
	}
	for hi < len(toks) && toks[hi].sentence == toks[m.start].sentence {
		hi++
	}
	// A greeting and the name after it ("hi Kevin") say nothing about the call.
	for lo < m.start && greetings[strings.ToLower(toks[lo].surface)] {
		lo++
		if lo < m.start && isName(toks[lo].surface) {
			lo++
		}
	}
	cutHead, cutTail := false, false
	if hi-lo > maxQuoteWords {
		if m.start-maxQuoteWords/2 > lo {
			lo, cutHead = m.start-maxQuoteWords/2, true
		}
		if lo+maxQuoteWords < hi {
			hi, cutTail = lo+maxQuoteWords, true
		}
	}
	var ws []string
	for _, t := range toks[lo:hi] {
		if t.surface == "" {
			continue
		}
		ws = append(ws, strings.TrimFunc(t.surface, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }))
	}
	q := strings.Join(ws, " ")
	if cutHead {
		q = "..." + q
	}
	if cutTail {
		q += "..."
	}
	// Lower-case the first letter unless it is "I": the quote continues a sentence.
	if r, n := utf8.DecodeRuneInString(q); n > 0 && !strings.HasPrefix(q, "I ") && !strings.HasPrefix(q, "I'") {
		q = string(unicode.ToLower(r)) + q[n:]
	}
	return q
}

var greetings = map[string]bool{"hi": true, "hello": true, "hey": true, "morning": true, "afternoon": true, "evening": true, "yes": true, "yeah": true, "okay": true, "ok": true, "so": true, "well": true, "um": true, "uh": true, "oh": true}

// isName reports a capitalised word other than "I" (written text only; speech
// output is lower case and keeps the word).
func isName(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && w != "I" && !strings.HasPrefix(w, "I'")
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func first(vals []string, def string) string {
	if len(vals) > 0 {
		return vals[0]
	}
	return def
}

// taxonomyDefault is the value a result gets when nothing was found.
func taxonomyDefault(cat string) string {
	tc, _ := callscribe.TaxonomyCategoryNamed(cat)
	return tc.Default
}
