package insights

import (
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The summary measures (make bench-insights reports them per
// split): a supervisor reading only the summary must learn why the customer
// called and how the call ended.
//
//   - TopicNamesReason: the topic names the labelled primary reason. The
//     reason a topic names is the one whose label or listed synonym
//     (reasonTerms) occurs first in it, whole words, case-insensitive; so a
//     topic that lists several reasons only counts for the first one, and one
//     that names none counts for none.
//   - OutcomeStated: the summary contains the outcome sentence of the
//     labelled outcome (OutcomeSentence), verbatim.

// reasonTerms are the words a supervisor uses for each call_reason value,
// besides its label in lexicon.json. Order matters only within a value.
var reasonTerms = map[string][]string{
	"billing":         {"billing", "bill", "invoice", "charge", "charged", "payment"},
	"refund":          {"refund", "money back"},
	"cancellation":    {"cancellation", "cancel", "cancelling"},
	"technical_issue": {"technical issue", "technical", "not working", "outage", "fault"},
	"account_access":  {"account access", "login", "log in", "password", "locked out"},
	"order_status":    {"order status", "order"},
	"delivery":        {"delivery", "parcel", "shipping"},
	"product_inquiry": {"product question", "product inquiry", "product enquiry"},
	"plan_change":     {"plan change", "change of plan", "upgrade", "downgrade"},
	"complaint":       {"complaint"},
	"fraud_report":    {"fraud report", "fraud", "unauthorised", "unauthorized"},
	"feedback":        {"feedback"},
	"other":           {"general enquiry", "general inquiry"},
}

// ReasonTerms returns the label and synonyms a topic may name a reason by.
func ReasonTerms(reason string) []string {
	var out []string
	if c := defaultModel.cats[callscribe.CategoryCallReason]; c != nil {
		if v, ok := c.spec.Values[reason]; ok && v.Label != "" {
			out = append(out, strings.ToLower(v.Label))
		}
	}
	return append(out, reasonTerms[reason]...)
}

// TopicReason is the call_reason value a topic names first ("" for none).
func TopicReason(topic string) string {
	words := strings.Fields(strings.ToLower(strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == ':' || r == ',' || r == '.' || r == '"' || r == '(' || r == ')' {
			return ' '
		}
		return r
	}, topic)))
	padded := " " + strings.Join(words, " ") + " "
	best, bestAt := "", len(padded)
	for _, v := range classesOf(callscribe.CategoryCallReason) {
		for _, term := range ReasonTerms(v) {
			at := strings.Index(padded, " "+term+" ")
			// The earliest mention wins; at the same position the longer term
			// ("order status" over "order").
			if at >= 0 && (at < bestAt || at == bestAt && len(term) > len(best)) {
				best, bestAt = v, at
			}
		}
	}
	return best
}

// TopicNamesReason reports whether the topic names reason first.
func TopicNamesReason(topic, reason string) bool { return TopicReason(topic) == reason }

// outcomeWords are the outcome sentences' explanations, in a supervisor's words.
var outcomeWords = map[string]string{
	"resolved":           "the issue was fixed or the request completed during the call",
	"partially_resolved": "part of the issue was handled and something remains open",
	"unresolved":         "the call ended without a fix or a clear next step",
	"escalated":          "the case was passed to a supervisor or specialist team",
	"follow_up_required": "someone must get back to the customer, or the customer must act later",
	"transferred":        "the call was transferred to another department or line",
	"sale_made":          "the customer bought, upgraded or added a product or service",
}

// OutcomeSentence is the sentence a summary states a call_outcome value with:
// "Outcome: follow-up required (someone must get back to the customer, ...)."
// It starts with the value's label, so no outcome's sentence contains another's.
func OutcomeSentence(outcome string) string {
	label := strings.ReplaceAll(outcome, "_", " ")
	if c := defaultModel.cats[callscribe.CategoryCallOutcome]; c != nil {
		if v, ok := c.spec.Values[outcome]; ok && v.Label != "" {
			label = strings.ToLower(v.Label)
		}
	}
	s := "Outcome: " + label
	if w := outcomeWords[outcome]; w != "" {
		s += " (" + w + ")"
	}
	return s + "."
}

// OutcomeStated reports whether a summary states the outcome's sentence.
func OutcomeStated(summary, outcome string) bool {
	return strings.Contains(summary, OutcomeSentence(outcome))
}
