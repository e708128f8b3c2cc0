package awstranscribe

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/transcribe/types"
)

// preferredRegion picks the locale for a bare language hint where Transcribe
// offers several: the variant with the most speakers and the broadest model.
// Languages not listed get their only (or first listed) locale.
var preferredRegion = map[string]types.LanguageCode{
	"en": types.LanguageCodeEnUs,
	"es": types.LanguageCodeEsUs,
	"fr": types.LanguageCodeFrFr,
	"de": types.LanguageCodeDeDe,
	"pt": types.LanguageCodePtBr,
	"ar": types.LanguageCodeArSa,
	"zh": types.LanguageCodeZhCn,
	"it": types.LanguageCodeItIt,
	"nl": types.LanguageCodeNlNl,
}

// LanguageCode maps the caller's hint (BCP-47 or ISO 639-1: "en", "en-GB",
// "pt_BR") to a Transcribe language code. ok is false when Transcribe has no
// model for the language.
func LanguageCode(hint string) (code types.LanguageCode, ok bool) {
	h := strings.ReplaceAll(strings.TrimSpace(hint), "_", "-")
	if h == "" {
		return "", false
	}
	all := types.LanguageCode("").Values()
	for _, c := range all {
		if strings.EqualFold(string(c), h) {
			return c, true
		}
	}
	// A bare language, or a locale Transcribe lacks (en-CA): the language's
	// preferred locale, since refusing a language Transcribe knows helps nobody.
	primary, _, _ := strings.Cut(strings.ToLower(h), "-")
	if c, ok := preferredRegion[primary]; ok {
		return c, true
	}
	for _, c := range all {
		if p, _, _ := strings.Cut(string(c), "-"); strings.EqualFold(p, primary) {
			return c, true
		}
	}
	return "", false
}
