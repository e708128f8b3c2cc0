package insights

import (
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// A short sale call that ends on a warm thank-you: the model alone reads it
// neutral; the closing turn is strong, so the tag is positive, and meta_data
// says the turns decided and which turn.
func TestSentimentStrongClosingTurnOverrulesNeutralModel(t *testing.T) {
	text := "Agent: Brightline Broadband, sales, this is Priya.\n" +
		"User: Hi, I'd like to upgrade to the faster fibre plan.\n" +
		"Agent: Sure, that's thirty five pounds a month and I can switch you today.\n" +
		"User: Yes please, go ahead.\n" +
		"Agent: Done, it's active from tomorrow morning.\n" +
		"User: Excellent, thank you for the quick help."
	res := tag(t, text)
	ev := res.MetaData["customer_turns"].(map[string]any)
	if one(res, callscribe.CategoryCustomerSentiment) != callscribe.SentimentPositive {
		t.Fatalf("customer_sentiment %v, evidence %v", res.Tags[callscribe.CategoryCustomerSentiment], ev)
	}
	if ev["model_label"] != callscribe.SentimentNeutral || ev["decided_by"] != "turns" {
		t.Fatalf("evidence %v", ev)
	}
	if by := res.MetaData["decided_by"].(map[string]any)[callscribe.CategoryCustomerSentiment]; by != "turns" {
		t.Fatalf("decided_by %v", by)
	}
	strong := ev["strong_turns"].([]any)
	last := strong[len(strong)-1].(map[string]any)
	if last["turn"] != 3 || last["text"] != "Excellent, thank you for the quick help." {
		t.Fatalf("strong turns %v", strong)
	}
}

// Where the model reads the call as negative, a strong positive turn (a warm
// opening thank-you) does not overrule it, though the turns alone say mixed:
// the tag keeps the model's label.
func TestSentimentModelsNonNeutralLabelIsKept(t *testing.T) {
	text := "Agent: Spokes and Gears, how can I help?\n" +
		"User: Thank you so much for calling back, that's brilliant!\n" +
		"Agent: No problem, what can I do?\n" +
		"User: My order still hasn't arrived and it's been three weeks.\n" +
		"Agent: I can't see where it is, I'll open a case.\n" +
		"User: So nobody knows where it is. I want a refund."
	res := tag(t, text)
	ev := res.MetaData["customer_turns"].(map[string]any)
	if ev["model_label"] != callscribe.SentimentNegative || ev["label"] == callscribe.SentimentNegative || len(ev["strong_turns"].([]any)) == 0 {
		t.Fatalf("want a negative model against turns that say otherwise with a strong turn: evidence %v", ev)
	}
	if ev["decided_by"] != "model" || one(res, callscribe.CategoryCustomerSentiment) != callscribe.SentimentNegative {
		t.Fatalf("customer_sentiment %v, evidence %v", res.Tags[callscribe.CategoryCustomerSentiment], ev)
	}
}

// A call too short for the model: the lexicon's decision stands unless a turn
// is strong, and meta_data says the lexicon decided.
func TestSentimentShortCallLexiconDecides(t *testing.T) {
	res := tag(t, "Agent: Hello.\nUser: Okay, bye.")
	ev := res.MetaData["customer_turns"].(map[string]any)
	if ev["decided_by"] != "lexicon" || one(res, callscribe.CategoryCustomerSentiment) != callscribe.SentimentNeutral {
		t.Fatalf("customer_sentiment %v, evidence %v, decided_by %v", res.Tags[callscribe.CategoryCustomerSentiment], ev, res.MetaData["decided_by"])
	}
}
