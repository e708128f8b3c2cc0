package train

import (
	"strconv"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
)

// Priced offers (insights.FeatureSet.Offer, call_outcome): an experiment
// recorded in README.md, not read by the shipped model.
//
// Cross-validated, the commonest call_outcome miss was a sale read as
// "resolved": 13 of the 221 held-out calls. In a sale the customer accepts a price
// mid-call and the call then ends like any resolved call ("lovely, thank
// you"), so the last turns, which the outcome model weighs, hide it. What
// marks the sale is structural: an agent turn that names a price, the
// customer's reply to it, and the agent's turn after that ("That's a good
// deal. Let's upgrade." / "Done, the kit arrives Friday."). The features name
// those turns and leave it to the fit which words in them matter, so no list
// of ways to say yes is written here.
//
// A price is a number (digits or number words) in the same turn as a word
// of money or of a billing period: "five pounds more", "ninety nine with your
// loyalty discount", "three ninety nine a month". Only the structure is fixed;
// the currency and period words are closed classes.
//
// Cross-validated it moved call_outcome by two calls of 221 (sales read as
// resolved: 13 -> 12), and by one fewer on dev: 9 of the 30 sales of
// train+dev name no price the rule sees ("same price", "seventy nine with a
// spare battery"), and where it does, the customer's ways of saying yes are
// as varied as the rest of the call. Counting any number or money word as a
// price found 29 of the 30 and moved nothing.

var numberWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`zero one two three four five six seven eight nine ten eleven twelve
		thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty
		seventy eighty ninety hundred thousand half`) {
		numberWords[w] = true
	}
}

// moneyWords are the currencies and billing periods a price is said in
// (singular: the tokens' words are lower case, "pounds" is checked as
// "pound").
var moneyWords = map[string]bool{
	"pound": true, "quid": true, "penny": true, "pence": true, "p": true,
	"dollar": true, "buck": true, "cent": true, "euro": true,
	"month": true, "monthly": true, "year": true, "yearly": true, "annual": true, "annually": true, "week": true, "weekly": true,
	"price": true, "cost": true, "discount": true, "fee": true, "free": true,
}

func isNumber(w string) bool {
	if numberWords[w] {
		return true
	}
	_, err := strconv.ParseFloat(w, 64)
	return err == nil
}

// pricedTurns marks the agent turns that name a price (without known
// speakers, any turn).
func pricedTurns(a *insights.Call) map[int]bool {
	known := a.SpeakersKnown()
	num, money := map[int]bool{}, map[int]bool{}
	for _, t := range a.Tokens("") {
		if known && t.Speaker != callscribe.AliasAgent {
			continue
		}
		if isNumber(t.Word) {
			num[t.Turn] = true
		}
		if moneyWords[t.Word] || moneyWords[strings.TrimSuffix(t.Word, "s")] {
			money[t.Turn] = true
		}
	}
	out := map[int]bool{}
	for turn := range num {
		if money[turn] {
			out[turn] = true
		}
	}
	// "£5" loses its sign to the tokenizer: a currency sign in the turn's
	// text is a price on its own.
	for i, t := range a.Turns() {
		if (!known || t.Speaker == callscribe.AliasAgent) && strings.ContainsAny(t.Text, "£$€") {
			out[i] = true
		}
	}
	return out
}

// offerFeatures adds the priced-offer group: "o:priced" when an agent turn
// names a price, then the words (unigrams and bigrams) of the customer's next
// turn after the last such turn ("o:u:") and of the agent's turn after that
// reply ("o:a:").
func offerFeatures(out map[string]float64, a *insights.Call) {
	priced := pricedTurns(a)
	if len(priced) == 0 {
		return
	}
	last := -1
	for turn := range priced {
		last = max(last, turn)
	}
	// The reply: the next turn of the other side; then the next agent turn.
	turns, known := a.Turns(), a.SpeakersKnown()
	reply, after := -1, -1
	for i := last + 1; i < len(turns); i++ {
		if reply < 0 && (!known || turns[i].Speaker != turns[last].Speaker) {
			reply = i
			continue
		}
		if reply >= 0 && (!known || turns[i].Speaker == turns[last].Speaker) {
			after = i
			break
		}
	}
	g := map[string]bool{"o:priced": true}
	toks := a.Tokens("")
	for i, t := range toks {
		var p string
		switch t.Turn {
		case reply:
			p = "o:u:"
		case after:
			p = "o:a:"
		default:
			continue
		}
		g[p+t.Stem] = true
		if i > 0 && toks[i-1].Turn == t.Turn {
			g[p+toks[i-1].Stem+"_"+t.Stem] = true
		}
	}
	insights.AddGroup(out, g)
}
