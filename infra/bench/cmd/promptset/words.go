package main

import (
	"regexp"
	"strings"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

// asides are the list's notes to the reader or of sounds, not words spoken:
// "[ascending tones]", "(simple tone sound plays)".
var asides = regexp.MustCompile(`\[[^\]]*\]|\([^)]*\)`)

// misspellings are the list's own typing errors, mended to the words the
// recordings say.
var misspellings = map[string]string{
	"decending":      "descending",
	"indentified":    "identified",
	"represenatives": "representatives",
	"witheld":        "withheld",
	"umute":          "unmute",
}

var digitRuns = regexp.MustCompile(`[0-9]+`)

var smallNumbers = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
	"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}

var tens = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}

// promptWords is a prompt's text as the words the reader says, in the
// bench's normal form (sphinx.NormalizeText): asides dropped, the keypad's
// symbols named as a phone menu names them ("*" star, "#" pound), numbers of
// one or two digits spelled out ("3D" three d). A prompt whose reading is not
// plain from its text (a number of three or more digits: "H.323" is read
// digit by digit or as a number) gives nil and is left out.
func promptWords(text string) []string {
	text = asides.ReplaceAllString(text, " ")
	text = strings.NewReplacer("*", " star ", "#", " pound ", "&", " and ", "%", " percent ", "-", " ").Replace(text)
	unreadable := false
	text = digitRuns.ReplaceAllStringFunc(text, func(run string) string {
		n, ok := spellNumber(run)
		if !ok {
			unreadable = true
		}
		return " " + n + " "
	})
	if unreadable {
		return nil
	}
	words := sphinx.NormalizeText(text)
	for i, w := range words {
		if right, ok := misspellings[w]; ok {
			words[i] = right
		}
	}
	return words
}

// spellNumber spells a run of one or two digits; ok is false for longer runs.
func spellNumber(run string) (string, bool) {
	if len(run) > 2 {
		return "", false
	}
	n := 0
	for _, r := range run {
		n = n*10 + int(r-'0')
	}
	switch {
	case n < 20:
		return smallNumbers[n], true
	case n%10 == 0:
		return tens[n/10], true
	default:
		return tens[n/10] + " " + smallNumbers[n%10], true
	}
}
