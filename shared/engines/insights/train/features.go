package train

import (
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
)

// featuresOf is a call's features for a category: the groups the service
// computes (insights.Call.Features) and the experiments' groups, which no
// model file may name: word classes (Clusters, clusters.go), word vectors
// (Vectors, vectors.go) and priced offers (Offer, offer.go).
func (p *prepared) featuresOf(c *insights.Call, cat string, fs insights.FeatureSet) map[string]float64 {
	var extra func(prefix string, t insights.Token) []string
	if fs.Clusters && p.classes != nil {
		// The classes of the Position group's words (the finest) and of the
		// Opening group's (every level) join those groups.
		extra = func(prefix string, t insights.Token) []string {
			wc, ok := p.classes.of(t.Word)
			if !ok {
				return nil
			}
			if prefix == "f:" {
				return wc.names(prefix)
			}
			return wc.names(prefix)[:1]
		}
	}
	out := c.Features(cat, fs, extra)
	toks := c.Tokens(cat)
	if fs.Clusters {
		g := map[string]bool{}
		for i, t := range toks {
			wc, ok := p.classes.of(t.Word)
			if !ok {
				continue
			}
			names := wc.names("")
			for _, n := range names {
				g[n] = true
			}
			// Bigrams of the finest classes: "stop the monitoring" after
			// training on "cancel the membership".
			if i > 0 && toks[i-1].Turn == t.Turn {
				if pc, ok := p.classes.of(toks[i-1].Word); ok {
					g[pc.names("")[0]+"_"+names[0]] = true
				}
			}
		}
		insights.AddGroup(out, g)
	}
	if fs.Vectors {
		p.vectors.addMean(out, "v:", toks)
		if cat == callscribe.CategoryCallReason {
			open := c.OpeningTurns()
			var ot []insights.Token
			for _, t := range c.Tokens("") {
				if open[t.Turn] {
					ot = append(ot, t)
				}
			}
			p.vectors.addMean(out, "fv:", ot)
		} else {
			end := c.EndTurns(cat)
			var et []insights.Token
			for _, t := range toks {
				if _, ok := end[t.Turn]; ok {
					et = append(et, t)
				}
			}
			p.vectors.addMean(out, "ev:", et)
		}
	}
	if fs.Offer && cat == callscribe.CategoryCallOutcome {
		offerFeatures(out, c)
	}
	return out
}
