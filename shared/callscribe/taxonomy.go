package callscribe

import (
	"slices"
	"strings"
)

// Tag categories of the fixed taxonomy. The taxonomy is the service's, not an
// account's: every tagger (built-in or LLM) is held to it by NormalizeTags so that
// nothing outside it is ever stored or delivered.
const (
	CategoryCallReason        = "call_reason"
	CategoryCustomerSentiment = "customer_sentiment"
	CategoryAgentApproach     = "agent_approach"
	CategoryCallOutcome       = "call_outcome"
)

// TaxonomyValue is one allowed value of a category.
type TaxonomyValue struct {
	Value       string `json:"value"`
	Description string `json:"description"`
}

// TaxonomyCategory is one category with how many values a result carries.
type TaxonomyCategory struct {
	Name      string          `json:"name"`
	MinValues int             `json:"min_values"`
	MaxValues int             `json:"max_values"`
	Values    []TaxonomyValue `json:"values"`
	// Default is what a result gets when a tagger found nothing for a category
	// that needs at least one value. Not published: it is a service policy.
	Default string `json:"-"`
}

// taxonomy is ordered as it is published (GET /v1/tags/taxonomy, README).
var taxonomy = []TaxonomyCategory{
	{
		Name: CategoryCallReason, MinValues: 1, MaxValues: 3, Default: "other",
		Values: []TaxonomyValue{
			{"billing", "Questions or problems with a bill, invoice, charge or payment."},
			{"refund", "The customer wants money back for a charge, order or service."},
			{"cancellation", "The customer wants to cancel a subscription, service, account or order."},
			{"technical_issue", "Something does not work: outage, error, device, app or connection problem."},
			{"account_access", "Login, password, locked account, verification code or profile access problems."},
			{"order_status", "Where an order is, whether it was placed, confirmed or shipped."},
			{"delivery", "Shipping and delivery problems: late, missing, damaged or wrong parcel, address changes."},
			{"product_inquiry", "Questions about a product or service before or after buying: features, availability, price."},
			{"plan_change", "Upgrading, downgrading or switching plan, tier or package."},
			{"complaint", "The customer complains about service, staff or repeated failures."},
			{"fraud_report", "Unauthorised charges, stolen cards, suspicious access or scams."},
			{"feedback", "The customer gives praise, suggestions or general feedback."},
			{"other", "Anything that fits none of the other reasons."},
		},
	},
	{
		Name: CategoryCustomerSentiment, MinValues: 1, MaxValues: 1, Default: "neutral",
		Values: []TaxonomyValue{
			{"positive", "The customer is satisfied, grateful or pleased."},
			{"neutral", "The customer is matter-of-fact, neither pleased nor upset."},
			{"negative", "The customer is frustrated, angry or disappointed."},
			{"mixed", "The customer shows both clear frustration and clear satisfaction."},
		},
	},
	{
		Name: CategoryAgentApproach, MinValues: 1, MaxValues: 3, Default: "professional",
		Values: []TaxonomyValue{
			{"empathetic", "The agent acknowledges the customer's feelings and situation."},
			{"professional", "The agent is courteous, structured and verifies details."},
			{"solution_oriented", "The agent drives to a concrete fix or next step."},
			{"informative", "The agent explains policies, options, causes or how things work."},
			{"apologetic", "The agent apologises for the problem or the experience."},
			{"upselling", "The agent offers an upgrade, add-on or additional product."},
			{"escalating", "The agent hands the case to a supervisor, specialist or another team."},
			{"dismissive", "The agent brushes the customer off or refuses without help."},
		},
	},
	{
		Name: CategoryCallOutcome, MinValues: 1, MaxValues: 1, Default: "unresolved",
		Values: []TaxonomyValue{
			{"resolved", "The issue was fixed or the request completed during the call."},
			{"partially_resolved", "Part of the issue was handled; something remains open."},
			{"unresolved", "The call ended without a fix or a clear next step."},
			{"escalated", "The case was escalated to a supervisor or specialist team."},
			{"follow_up_required", "Someone must get back to the customer or the customer must act later."},
			{"transferred", "The call was transferred to another department or line."},
			{"sale_made", "The customer bought, upgraded or added a product or service."},
		},
	},
}

// Taxonomy returns the categories in published order. The result is a copy, so
// callers may not alter the service's taxonomy.
func Taxonomy() []TaxonomyCategory {
	out := make([]TaxonomyCategory, len(taxonomy))
	for i, c := range taxonomy {
		c.Values = slices.Clone(c.Values)
		out[i] = c
	}
	return out
}

// TaxonomyCategoryNamed returns the category with that name.
func TaxonomyCategoryNamed(name string) (TaxonomyCategory, bool) {
	for _, c := range taxonomy {
		if c.Name == name {
			c.Values = slices.Clone(c.Values)
			return c, true
		}
	}
	return TaxonomyCategory{}, false
}

// IsTaxonomyValue reports whether value is allowed in category (exact spelling).
func IsTaxonomyValue(category, value string) bool {
	c := categoryIndex(category)
	if c < 0 {
		return false
	}
	return slices.ContainsFunc(taxonomy[c].Values, func(v TaxonomyValue) bool { return v.Value == value })
}

func categoryIndex(name string) int {
	return slices.IndexFunc(taxonomy, func(c TaxonomyCategory) bool { return c.Name == name })
}

// canonicalTag folds the harmless spelling differences LLMs produce ("Technical
// Issue", "follow-up required") onto the lower_snake_case form; anything that is
// still not an exact taxonomy value after that is dropped by NormalizeTags.
func canonicalTag(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("-", "_", " ", "_").Replace(s)
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	return s
}

// NormalizeTags keeps only known categories and values, in the order given,
// without duplicates and at most each category's MaxValues. dropped counts the
// values not kept (unknown category or value, or beyond the maximum); repeated
// values are merged, not counted. Every category is present in the result, with
// an empty slice when nothing valid was given; FillTagDefaults completes it.
func NormalizeTags(raw map[string][]string) (tags map[string][]string, dropped int) {
	tags = make(map[string][]string, len(taxonomy))
	for _, c := range taxonomy {
		tags[c.Name] = []string{}
	}
	// Sorted keys make the result independent of map order when two raw keys fold
	// onto the same category (e.g. "call_reason" and "Call Reason").
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		vals := raw[k]
		ci := categoryIndex(canonicalTag(k))
		if ci < 0 {
			dropped += len(vals)
			continue
		}
		cat := taxonomy[ci]
		for _, v := range vals {
			v = canonicalTag(v)
			switch {
			case !IsTaxonomyValue(cat.Name, v):
				dropped++
			case slices.Contains(tags[cat.Name], v):
				// A repeat adds nothing and loses nothing.
			case len(tags[cat.Name]) >= cat.MaxValues:
				dropped++
			default:
				tags[cat.Name] = append(tags[cat.Name], v)
			}
		}
	}
	return tags, dropped
}

// FillTagDefaults gives every category with fewer than MinValues values its
// default value (call_reason other, customer_sentiment neutral, agent_approach
// professional, call_outcome unresolved) and returns the names of the categories
// it filled, for the result's meta_data. Missing categories are added.
func FillTagDefaults(tags map[string][]string) (filled []string) {
	for _, c := range taxonomy {
		if len(tags[c.Name]) < c.MinValues {
			tags[c.Name] = append(tags[c.Name], c.Default)
			filled = append(filled, c.Name)
		}
	}
	return filled
}

// Normalize holds a tagger's result to the taxonomy: the one place the rule is
// applied (every tagger calls it, and the pipeline calls it again before a
// result is stored, whatever the tagger). Unknown categories and values, and
// values past a category's maximum, are dropped and added to
// meta_data.dropped; a category left below its minimum gets its default, named
// in meta_data.defaulted. Normalizing a normalized result changes nothing.
func (r *TagsResult) Normalize() {
	tags, dropped := NormalizeTags(r.Tags)
	filled := FillTagDefaults(tags)
	r.Tags = tags
	if r.MetaData == nil {
		r.MetaData = map[string]any{}
	}
	prev, _ := r.MetaData["dropped"].(int)
	if prev+dropped > 0 || r.MetaData["dropped"] != nil {
		r.MetaData["dropped"] = prev + dropped
	}
	if len(filled) > 0 {
		r.MetaData["defaulted"] = filled
	}
}
