package moonshine

// The model writes text as people write it: "$87", "3:30", "Mr.", "42 Elm
// Street". The embedded engine's transcripts are spoken words, lower-cased,
// as PocketSphinx's dictionary gives them, and what reads them downstream
// (redaction's spoken digits, keyterms, search, the bench's references)
// expects that form, so the model's words are said before they leave the
// engine: "$87" becomes "eighty seven dollars".

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	titles   = strings.NewReplacer("mr.", "mister", "mrs.", "missus", "dr.", "doctor", "&", " and ")
	money    = regexp.MustCompile(`\$(\d[\d,]*)(?:\.(\d\d))?`)
	percent  = regexp.MustCompile(`(\d)%`)
	clock    = regexp.MustCompile(`\b(\d{1,2}):(\d\d)\b`)
	grouped  = regexp.MustCompile(`(\d),(\d{3})`)
	ordinal  = regexp.MustCompile(`\b(\d+)(st|nd|rd|th)\b`)
	number   = regexp.MustCompile(`\d+`)
	ones     = strings.Fields("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen")
	tens     = strings.Fields("_ _ twenty thirty forty fifty sixty seventy eighty ninety")
	ordinals = map[string]string{"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth", "nine": "ninth", "twelve": "twelfth"}
)

// Spoken returns text's words in spoken form, lower-cased, split on
// everything but letters, digits and apostrophes (as the sphinx engine's
// NormalizeText splits), with hyphenated words apart.
func Spoken(text string) []string {
	s := titles.Replace(strings.ToLower(text))
	s = money.ReplaceAllStringFunc(s, func(m string) string {
		g := money.FindStringSubmatch(m)
		// An amount is a cardinal, never a year.
		out := amount(strings.ReplaceAll(g[1], ",", "")) + " dollars"
		if g[2] != "" && g[2] != "00" {
			out += " " + amount(g[2]) + " cents"
		}
		return out
	})
	s = percent.ReplaceAllString(s, "$1 percent")
	s = clock.ReplaceAllStringFunc(s, func(m string) string {
		g := clock.FindStringSubmatch(m)
		if g[2] == "00" {
			return g[1]
		}
		return g[1] + " " + g[2]
	})
	for grouped.MatchString(s) {
		s = grouped.ReplaceAllString(s, "$1$2")
	}
	s = ordinal.ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.Atoi(ordinal.FindStringSubmatch(m)[1])
		if err != nil || n > 999999 {
			return m
		}
		w := strings.Fields(cardinal(n))
		last := w[len(w)-1]
		switch {
		case ordinals[last] != "":
			w[len(w)-1] = ordinals[last]
		case strings.HasSuffix(last, "y"):
			w[len(w)-1] = strings.TrimSuffix(last, "y") + "ieth"
		default:
			w[len(w)-1] = last + "th"
		}
		return strings.Join(w, " ")
	})
	s = number.ReplaceAllStringFunc(s, numeral)
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'')
	})
}

// numeral says a run of digits: digit by digit when it is long or starts
// with 0 (account and phone numbers), as a year for 1100-2099 outside the
// 2000s, and as a cardinal otherwise.
func numeral(d string) string {
	if len(d) > 6 || (len(d) > 1 && d[0] == '0') {
		return digits(d)
	}
	n, _ := strconv.Atoi(d)
	if len(d) == 4 && n >= 1100 && n <= 2099 && n/100 != 20 && n%100 != 0 {
		return cardinal(n/100) + " " + cardinal(n%100)
	}
	return cardinal(n)
}

// amount says digits as a cardinal (digit by digit past the cardinals).
func amount(d string) string {
	n, err := strconv.Atoi(d)
	if err != nil || n > 999999 {
		return digits(d)
	}
	return cardinal(n)
}

func digits(d string) string {
	w := make([]string, len(d))
	for i, c := range d {
		w[i] = ones[c-'0']
	}
	return strings.Join(w, " ")
}

func cardinal(n int) string {
	switch {
	case n < 20:
		return ones[n]
	case n < 100:
		if n%10 == 0 {
			return tens[n/10]
		}
		return tens[n/10] + " " + ones[n%10]
	case n < 1000:
		if n%100 == 0 {
			return ones[n/100] + " hundred"
		}
		return ones[n/100] + " hundred " + cardinal(n%100)
	default:
		if n%1000 == 0 {
			return cardinal(n/1000) + " thousand"
		}
		return cardinal(n/1000) + " thousand " + cardinal(n%1000)
	}
}
