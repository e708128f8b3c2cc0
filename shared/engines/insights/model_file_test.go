package insights

import (
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The service embeds no word classes or vectors, so a model file that reads
// them must not load.
func TestModelFileWithWordClassesIsRejected(t *testing.T) {
	b := []byte(`{"version":"2","categories":{"call_reason":{"classes":["billing","other"],"features":{"words":true,"clusters":true},"weights":{"bias":[0,0]}}}}`)
	if _, err := ParseModel(b); err == nil || !strings.Contains(err.Error(), "word classes") {
		t.Fatalf("ParseModel = %v, want the word-classes refusal", err)
	}
	vec := strings.Replace(string(b), `"clusters":true`, `"vectors":true`, 1)
	if _, err := ParseModel([]byte(vec)); err == nil || !strings.Contains(err.Error(), "word vectors") {
		t.Fatalf("ParseModel = %v, want the word-vectors refusal", err)
	}
	ok := strings.Replace(string(b), `,"clusters":true`, "", 1)
	if _, err := ParseModel([]byte(ok)); err != nil {
		t.Fatalf("the same file without clusters: %v", err)
	}
}

// combine lists call_reason's secondary values by the model's probabilities
// when the model has a SecondaryRule, the lexicon's other values without one.
func TestCombineSecondaryReasons(t *testing.T) {
	reason := callscribe.CategoryCallReason
	classes := []string{"billing", "refund", "complaint", "fraud_report", "other"}
	rule := &SecondaryRule{Min: 0.2, LexiconMin: 0.05}
	for _, c := range []struct {
		name string
		lex  []string
		p    []float64
		rule *SecondaryRule
		want []string
	}{
		{"runners-up at Min, most probable first", nil, []float64{0.5, 0.21, 0.25, 0.04, 0}, rule, []string{"billing", "complaint", "refund"}},
		{"below Min only with the lexicon", []string{"fraud_report"}, []float64{0.6, 0.15, 0.19, 0.06, 0}, rule, []string{"billing", "fraud_report"}},
		{"the lexicon alone is not enough", []string{"fraud_report", "refund"}, []float64{0.7, 0.02, 0.2, 0.01, 0.07}, rule, []string{"billing", "complaint"}},
		{"at most three", []string{"fraud_report"}, []float64{0.3, 0.22, 0.23, 0.25, 0}, rule, []string{"billing", "fraud_report", "complaint"}},
		{"other never accompanies a reason", nil, []float64{0.5, 0.05, 0.05, 0, 0.4}, rule, []string{"billing"}},
		{"other first stands alone", []string{"refund"}, []float64{0.1, 0.3, 0, 0, 0.6}, rule, []string{"other"}},
		{"without a rule: the lexicon's others", []string{"refund", "other", "complaint", "fraud_report"}, []float64{0.7, 0.01, 0.01, 0.01, 0.27}, nil, []string{"billing", "refund", "complaint"}},
	} {
		got, byModel := Combine(reason, c.lex, classes, c.p, 0, c.rule)
		if !byModel || !slices.Equal(got, c.want) {
			t.Errorf("%s: combine = %v (by model %v), want %v", c.name, got, byModel, c.want)
		}
	}
	// Below the gate the lexicon decides, its list unchanged.
	if got, byModel := Combine(reason, []string{"refund", "complaint"}, classes, []float64{0.4, 0.3, 0.3, 0, 0}, 0.5, rule); byModel || !slices.Equal(got, []string{"refund", "complaint"}) {
		t.Errorf("below the gate: combine = %v (by model %v), want the lexicon's [refund complaint]", got, byModel)
	}
}

// A model file's secondary rule must be call_reason's and well ordered.
func TestModelFileSecondaryRuleIsChecked(t *testing.T) {
	for _, c := range []struct {
		name, cat, rule string
		ok              bool
	}{
		{"call_reason's rule", "call_reason", `{"min":0.2,"lexicon_min":0.1}`, true},
		{"another category's", "call_outcome", `{"min":0.2,"lexicon_min":0.1}`, false},
		{"lexicon_min above min", "call_reason", `{"min":0.2,"lexicon_min":0.3}`, false},
		{"min zero lists everything", "call_reason", `{"min":0,"lexicon_min":0}`, false},
	} {
		b := []byte(`{"version":"t","categories":{"` + c.cat + `":{"classes":[],"weights":{},"secondary":` + c.rule + `}}}`)
		if _, err := ParseModel(b); (err == nil) != c.ok {
			t.Errorf("%s: ParseModel error %v, want ok %v", c.name, err, c.ok)
		}
	}
}
