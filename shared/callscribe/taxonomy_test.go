package callscribe

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
)

func TestTaxonomyShape(t *testing.T) {
	want := map[string][2]int{
		CategoryCallReason:        {1, 3},
		CategoryCustomerSentiment: {1, 1},
		CategoryAgentApproach:     {1, 3},
		CategoryCallOutcome:       {1, 1},
	}
	snake := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	cats := Taxonomy()
	if len(cats) != len(want) {
		t.Fatalf("got %d categories, want %d", len(cats), len(want))
	}
	for _, c := range cats {
		mm, ok := want[c.Name]
		if !ok || c.MinValues != mm[0] || c.MaxValues != mm[1] {
			t.Errorf("category %q min/max %d/%d, want %v", c.Name, c.MinValues, c.MaxValues, mm)
		}
		seen := map[string]bool{}
		for _, v := range c.Values {
			if !snake.MatchString(v.Value) || v.Description == "" || seen[v.Value] {
				t.Errorf("%s: bad or repeated value %+v", c.Name, v)
			}
			seen[v.Value] = true
		}
		if !IsTaxonomyValue(c.Name, c.Default) {
			t.Errorf("%s: default %q is not a value of the category", c.Name, c.Default)
		}
	}
	if n := len(cats[0].Values); n != 13 {
		t.Errorf("call_reason has %d values, want 13", n)
	}
}

func TestTaxonomyIsACopy(t *testing.T) {
	a := Taxonomy()
	a[0].Values[0].Value = "hacked"
	a[1].MaxValues = 99
	if IsTaxonomyValue(CategoryCallReason, "hacked") || !IsTaxonomyValue(CategoryCallReason, "billing") {
		t.Fatal("changing the returned taxonomy changed the service's")
	}
	if c, _ := TaxonomyCategoryNamed(CategoryCustomerSentiment); c.MaxValues != 1 {
		t.Fatal("max values changed through the copy")
	}
}

func TestTaxonomyJSON(t *testing.T) {
	b, err := json.Marshal(Taxonomy()[1])
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	for _, k := range []string{"name", "min_values", "max_values", "values"} {
		if _, ok := got[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if _, ok := got["Default"]; ok {
		t.Errorf("default leaked into JSON: %s", b)
	}
	v := got["values"].([]any)[0].(map[string]any)
	if v["value"] != "positive" || v["description"] == "" {
		t.Errorf("value JSON: %v", v)
	}
}

func TestNormalizeTags(t *testing.T) {
	tests := []struct {
		name    string
		raw     map[string][]string
		want    map[string][]string
		dropped int
	}{
		{
			name: "nil gives every category empty",
			raw:  nil,
			want: map[string][]string{"call_reason": {}, "customer_sentiment": {}, "agent_approach": {}, "call_outcome": {}},
		},
		{
			name: "unknown category and values dropped and counted",
			raw: map[string][]string{
				"call_reason":  {"billing", "weather", "refund"},
				"urgency":      {"high", "low"},
				"call_outcome": {"solved"},
			},
			want:    map[string][]string{"call_reason": {"billing", "refund"}, "customer_sentiment": {}, "agent_approach": {}, "call_outcome": {}},
			dropped: 4,
		},
		{
			name: "spelling folded, duplicates merged, order kept",
			raw: map[string][]string{
				"Call Reason":    {"Technical Issue", "technical_issue", " account-access "},
				"agent_approach": {"solution_oriented", "EMPATHETIC"},
			},
			want: map[string][]string{"call_reason": {"technical_issue", "account_access"}, "customer_sentiment": {}, "agent_approach": {"solution_oriented", "empathetic"}, "call_outcome": {}},
		},
		{
			name: "maximum enforced, the first values win",
			raw: map[string][]string{
				"call_reason":        {"billing", "refund", "complaint", "cancellation", "fraud_report"},
				"customer_sentiment": {"negative", "mixed"},
				"call_outcome":       {"escalated", "transferred", "resolved"},
			},
			want:    map[string][]string{"call_reason": {"billing", "refund", "complaint"}, "customer_sentiment": {"negative"}, "agent_approach": {}, "call_outcome": {"escalated"}},
			dropped: 5,
		},
		{
			name:    "a value of another category is not accepted",
			raw:     map[string][]string{"customer_sentiment": {"resolved", "positive"}},
			want:    map[string][]string{"call_reason": {}, "customer_sentiment": {"positive"}, "agent_approach": {}, "call_outcome": {}},
			dropped: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped := NormalizeTags(tc.raw)
			if !reflect.DeepEqual(got, tc.want) || dropped != tc.dropped {
				t.Errorf("got %v dropped %d, want %v dropped %d", got, dropped, tc.want, tc.dropped)
			}
		})
	}
}

func TestFillTagDefaults(t *testing.T) {
	tags, _ := NormalizeTags(map[string][]string{"call_reason": {"delivery"}, "call_outcome": {"resolved"}})
	filled := FillTagDefaults(tags)
	if !reflect.DeepEqual(filled, []string{"customer_sentiment", "agent_approach"}) {
		t.Errorf("filled %v", filled)
	}
	want := map[string][]string{"call_reason": {"delivery"}, "customer_sentiment": {"neutral"}, "agent_approach": {"professional"}, "call_outcome": {"resolved"}}
	if !reflect.DeepEqual(tags, want) {
		t.Errorf("got %v", tags)
	}
	if again := FillTagDefaults(tags); len(again) != 0 {
		t.Errorf("complete tags filled again: %v", again)
	}
	empty := map[string][]string{}
	FillTagDefaults(empty)
	if empty["call_reason"][0] != "other" || empty["call_outcome"][0] != "unresolved" {
		t.Errorf("defaults: %v", empty)
	}
}
