package insights

import (
	"context"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// TaggerMethod names the built-in tagger in meta_data: the lexicon, with the
// trained linear model (model.json) deciding call_reason, customer_sentiment and
// call_outcome when it is confident enough (see linear.go).
const TaggerMethod = "builtin-lexicon-linear-v2"

// Tagger is the built-in callscribe.Tagger.
type Tagger struct{ m *model }

// NewTagger returns the built-in tagger over the embedded lexicon.
func NewTagger() *Tagger { return &Tagger{m: defaultModel} }

var _ callscribe.Tagger = (*Tagger)(nil)

// Tag selects taxonomy values for the call. It never fails: a call without
// evidence gets the taxonomy defaults, reported in meta_data.defaulted.
func (t *Tagger) Tag(ctx context.Context, tr callscribe.Transcript) (*callscribe.TagsResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := t.m.analyze(tr)
	raw := make(map[string][]string, len(a.cats))
	evidence := map[string]any{}
	decidedBy := map[string]any{} // category -> "model" or "lexicon", where the model ran
	for _, name := range t.m.catsOrder {
		r := a.cats[name]
		raw[name] = r.selected
		ev := map[string]any{}
		for _, v := range r.selected {
			e := map[string]any{}
			if vs := r.scores[v]; vs != nil {
				e["score"], e["evidence"] = round2(vs.score), vs.evidence(3)
			}
			if r.model != nil {
				e["model_probability"] = round2(r.model[v])
			}
			if len(e) > 0 {
				ev[v] = e
			}
		}
		evidence[name] = ev
		if r.model != nil {
			decidedBy[name] = "lexicon"
			if r.byModel {
				decidedBy[name] = "model"
			}
			if r.byTurns {
				decidedBy[name] = "turns"
			}
		}
	}
	meta := map[string]any{
		"method":          TaggerMethod,
		"lexicon_version": t.m.version,
		"evidence":        evidence,
		"dropped":         0,
	}
	if t.m.linear != nil {
		meta["model_version"] = t.m.linear.Digest
		meta["decided_by"] = decidedBy
	}
	if r := a.cats[callscribe.CategoryCustomerSentiment]; r != nil && r.turns != nil {
		meta["customer_turns"] = r.turns
	}
	for k, v := range a.sizes() {
		meta[k] = v
	}
	// The built-in lexicon is validated against the taxonomy, so nothing should
	// be dropped here; going through the same gate as every provider keeps it so.
	res := &callscribe.TagsResult{Tags: raw, MetaData: meta}
	res.Normalize()
	return res, nil
}
