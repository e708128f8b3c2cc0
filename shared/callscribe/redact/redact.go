// Package redact finds personal data in transcripts and plain text and
// replaces it with category tokens ([REDACTED:CARD], [REDACTED:PHONE],
// [REDACTED:EMAIL], [REDACTED:NUMBER]). It is pure: no I/O, no models, so the
// same rules run in every stack and cost microseconds per minute of speech.
//
// What is caught:
//   - card numbers: runs of 13 to 19 digits that pass the Luhn check (CARD);
//   - phone numbers: runs of 10 digits, 11 digits starting 0 or 1, 8 to 15
//     digits after a "+" or a spoken "plus", and written ddd-dddd (PHONE);
//   - e-mail addresses, written (a@b.com) and spoken as a recogniser writes
//     them ("john dot smith at example dot com", a known top-level domain
//     required at the end) (EMAIL);
//   - any other run of six or more digits, including 13-19 digit runs that
//     fail the Luhn check (NUMBER).
//
// A token already in the text ("[REDACTED:PHONE]", from an engine that
// redacts on its own) is counted as a match of its category, so the counts
// and the audio spans cover what the engine removed too.
//
// Digits count whether written ("4242 4242", "555-123-4567", "(555)") or
// spoken ("four two four two", "oh" and "o" for zero, "double five",
// "triple seven", teens and tens: "forty two" is 42). A run continues across
// adjacent digit tokens and dashes, and across the homophones a recogniser
// writes for a digit between two others ("four to four two": to, too, for,
// won, ate); any other word ends it, so "one or two things" and "two
// thirty" stay (runs of one and three digits).
//
// In a transcript (Segments), each speaker's segments less than
// MaxChainGap apart are read as one, so a number said in groups across
// pauses is still one item.
//
// What is not caught: names, postal addresses, dates of birth said as words
// ("the third of May") or written as ISO dates ("2024-05-01"), digits split
// by other words ("four two, sorry, four two ..."), amounts with thousands
// separators, items split by a pause longer than MaxChainGap, digits the
// recogniser misheard as other words ("far too" for "four two"; only the
// homophones above are taken), e-mail addresses whose "at" was misheard as
// other than the mishearings in atMishearings (one article after it is
// allowed: domainArticles), or whose domain ends in a
// top-level domain outside the list below, and the
// first word of a local part spoken as two words ("graham osei at ..."
// keeps "graham"). A sentence's end stops a digit run; commas do not. Long
// decimals ("3.141592") are redacted as NUMBER, and "known as an example dot
// com" as EMAIL: the rules prefer a false positive to a leak.
package redact

import (
	"regexp"
	"strings"
)

// Category names, as counted in a result's redaction block.
const (
	Card   = "card"
	Phone  = "phone"
	Email  = "email"
	Number = "number"
)

// Categories lists every category in a fixed order.
var Categories = []string{Card, Phone, Email, Number}

// Token is the text that replaces a match of category c.
func Token(c string) string { return "[REDACTED:" + strings.ToUpper(c) + "]" }

// Match is a run of tokens [Start, End) that holds one item of Category.
type Match struct {
	Start, End int
	Category   string
}

// Counts holds how many items of each category were redacted.
type Counts map[string]int

// Add adds o's counts to c.
func (c Counts) Add(o Counts) {
	for k, v := range o {
		c[k] += v
	}
}

// Total is the number of items redacted.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

var (
	writtenEmail  = regexp.MustCompile(`^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$`)
	writtenDomain = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$`)
	writtenLocal  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._%+-]*$`)
	// writtenDigits is a token of digits with the separators phone and card
	// numbers are written with; a leading + marks an international number.
	writtenDigits = regexp.MustCompile(`^\+?\(?[0-9][0-9().\-]*$`)
	label         = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	// existingToken is a token an engine with redaction of its own already
	// put in (Amazon Transcribe's, mapped by package awstranscribe).
	existingToken = regexp.MustCompile(`^\[REDACTED:(CARD|PHONE|EMAIL|NUMBER)\]$`)
	isoDate       = regexp.MustCompile(`^[12][0-9]{3}-[01][0-9]-[0-3][0-9]$`)
)

var digitWords = map[string]string{
	"zero": "0", "oh": "0", "o": "0", "nought": "0", "one": "1", "two": "2", "three": "3", "four": "4",
	"five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}

// homophones are what a recogniser writes for a digit said among others
// ("four to four two"); they count only inside a run, between digits.
var homophones = map[string]string{"to": "2", "too": "2", "for": "4", "won": "1", "ate": "8"}

var teenWords = map[string]string{
	"ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14", "fifteen": "15",
	"sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19",
}

var tensWords = map[string]string{
	"twenty": "2", "thirty": "3", "forty": "4", "fifty": "5", "sixty": "6", "seventy": "7", "eighty": "8", "ninety": "9",
}

// topLevelDomains end a spoken e-mail address; the list keeps "at the dot
// com bubble"-like phrases and chance "at ... dot ..." from matching.
var topLevelDomains = map[string]bool{
	"com": true, "org": true, "net": true, "edu": true, "gov": true, "mil": true, "io": true, "co": true,
	"uk": true, "us": true, "ca": true, "au": true, "de": true, "fr": true, "es": true, "nl": true,
	"ie": true, "info": true, "biz": true,
}

// notAddressWords are never part of a spoken address's local part or domain.
var notAddressWords = map[string]bool{
	"the": true, "a": true, "an": true, "is": true, "my": true, "me": true, "you": true, "your": true,
	"to": true, "of": true, "and": true, "or": true, "it": true, "this": true, "that": true, "at": true,
	"dot": true, "in": true, "on": true, "for": true, "be": true, "we": true, "i": true, "email": true,
	"address": true, "its": true, "it's": true, "was": true, "look": true, "good": true,
}

// atMishearings are what a recogniser writes for the "at" of a spoken
// address on a poor line ("john f. example dot com"). They count as "at" only
// before a domain ending in a known top-level domain, after a word that can be
// a local part: a leak costs more than redacting a stray "... dot com".
var atMishearings = map[string]bool{"add": true, "had": true, "ad": true, "f": true, "hat": true, "et": true, "as": true, "it": true}

// domainArticles may stand between the "at" and the domain: the embedded
// engine, hearing "john at example dot com" without its speaker adaptation,
// wrote "john as an example dot com", the "at" run into an article. One is
// skipped; the domain must still be labels ending in a known top-level domain,
// so "look at the dot com bubble" and "we had a dot com job" stay as they are.
var domainArticles = map[string]bool{"a": true, "an": true, "the": true}

var emailConnectors = map[string]bool{"dot": true, "underscore": true, "dash": true, "hyphen": true, "period": true}

// norm lower-cases a token and trims the punctuation a recogniser or a
// writer puts around words.
func norm(tok string) string {
	return strings.ToLower(strings.Trim(tok, ".,;:!?\"'“”‘’()[]{}<>"))
}

// trimSentence removes a sentence's closing punctuation from a written
// address or number ("a@b.com." or "4242.").
func trimSentence(tok string) string {
	return strings.TrimRight(strings.Trim(tok, "\"'“”‘’<>[]{}"), ".,;:!?")
}

// Find returns the matches in tokens (words as written or recognised), in
// order and not overlapping.
func Find(tokens []string) []Match {
	n := len(tokens)
	words := make([]string, n)
	for i, t := range tokens {
		words[i] = norm(t)
	}
	taken := make([]bool, n)
	var matches []Match
	add := func(m Match) {
		for k := m.Start; k < m.End; k++ {
			taken[k] = true
		}
		matches = append(matches, m)
	}
	// E-mail first: an address's digits ("john42 at ...") belong to it.
	for i := 0; i < n; i++ {
		if m := existingToken.FindStringSubmatch(strings.TrimRight(tokens[i], ".,;:!?")); m != nil {
			add(Match{i, i + 1, strings.ToLower(m[1])})
			continue
		}
		if writtenEmail.MatchString(trimSentence(tokens[i])) {
			add(Match{i, i + 1, Email})
			continue
		}
		if words[i] == "at" || words[i] == "@" || atMishearings[words[i]] {
			if m, ok := spokenEmail(tokens, words, i); ok && !anyTaken(taken, m) {
				add(m)
			}
		}
	}
	for i := 0; i < n; {
		if taken[i] {
			i++
			continue
		}
		end, digits, plus, hyphen7 := digitRun(tokens, words, taken, i)
		if end == i {
			i++
			continue
		}
		if c := classify(digits, plus, hyphen7 && end == i+1); c != "" {
			add(Match{i, end, c})
		}
		i = end
	}
	sortMatches(matches)
	return matches
}

func anyTaken(taken []bool, m Match) bool {
	for k := m.Start; k < m.End; k++ {
		if taken[k] {
			return true
		}
	}
	return false
}

func sortMatches(ms []Match) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].Start < ms[j-1].Start; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// isLabel reports whether w can be a part of a spoken address.
func isLabel(w string) bool { return label.MatchString(w) && !notAddressWords[w] }

// spokenEmail matches "<local> at <domain> dot <tld>" around the "at" at i.
func spokenEmail(tokens, words []string, at int) (Match, bool) {
	// Domain: a written domain token, or labels joined by "dot" ending in a
	// known top-level domain.
	end := -1
	from := at + 1
	if from+1 < len(words) && domainArticles[words[from]] {
		from++
	}
	if from < len(words) && writtenDomain.MatchString(trimSentence(tokens[from])) {
		end = from + 1
	} else {
		for j := from; j+2 < len(words) && isLabel(words[j]) && words[j+1] == "dot"; j += 2 {
			if topLevelDomains[words[j+2]] {
				end = j + 3
			}
			if !isLabel(words[j+2]) {
				break
			}
		}
	}
	if end < 0 {
		return Match{}, false
	}
	// Local part: a written local token, or labels joined by connectors.
	start := at - 1
	if start < 0 {
		return Match{}, false
	}
	if !isLabel(words[start]) && !writtenLocal.MatchString(trimSentence(tokens[start])) {
		return Match{}, false
	}
	if notAddressWords[words[start]] {
		return Match{}, false
	}
	for start-2 >= 0 && emailConnectors[words[start-1]] && isLabel(words[start-2]) {
		start -= 2
	}
	return Match{start, end, Email}, true
}

// digitRun reads the digits of the run starting at token i: it returns the
// end of the run (i when no run starts there), its digits, whether it began
// with a plus, and whether its one token was written ddd-dddd.
func digitRun(tokens, words []string, taken []bool, i int) (end int, digits string, plus, hyphen7 bool) {
	var b strings.Builder
	j := i
	if words[j] == "plus" && j+1 < len(words) && startsDigits(tokens[j+1], words[j+1]) {
		plus = true
		j++
	}
	for j < len(words) && !taken[j] {
		// A sentence's end ends the run: "order four oh eight one two.
		// Sixteen days" is two numbers; a comma between groups is not.
		if j > i && endsSentence(tokens[j-1]) {
			break
		}
		w := words[j]
		if d, ok := digitWords[w]; ok {
			// "o" and "oh" are zero only next to other digits.
			if (w == "o" || w == "oh") && b.Len() == 0 && !(j+1 < len(words) && startsDigits(tokens[j+1], words[j+1])) {
				break
			}
			b.WriteString(d)
			j++
			continue
		}
		if d, ok := teenWords[w]; ok {
			b.WriteString(d)
			j++
			continue
		}
		if d, ok := tensWords[w]; ok {
			b.WriteString(d)
			if j+1 < len(words) && words[j+1] != "oh" && words[j+1] != "o" && words[j+1] != "zero" && digitWords[words[j+1]] != "" {
				b.WriteString(digitWords[words[j+1]])
				j += 2
			} else {
				b.WriteString("0")
				j++
			}
			continue
		}
		if (w == "double" || w == "triple") && j+1 < len(words) && digitWords[words[j+1]] != "" {
			times := 2
			if w == "triple" {
				times = 3
			}
			b.WriteString(strings.Repeat(digitWords[words[j+1]], times))
			j += 2
			continue
		}
		raw := trimSentence(tokens[j])
		if writtenDigits.MatchString(raw) && !isoDate.MatchString(raw) {
			if b.Len() == 0 && strings.HasPrefix(raw, "+") {
				plus = true
			}
			hyphen7 = j == i && len(raw) == 8 && raw[3] == '-'
			for _, r := range raw {
				if r >= '0' && r <= '9' {
					b.WriteRune(r)
				}
			}
			j++
			continue
		}
		if d, ok := homophones[w]; ok && b.Len() > 0 && j+1 < len(words) && startsDigits(tokens[j+1], words[j+1]) {
			b.WriteString(d)
			j++
			continue
		}
		// A dash between digits keeps the run going.
		if b.Len() > 0 && (w == "-" || w == "dash" || w == "hyphen") && j+1 < len(words) && startsDigits(tokens[j+1], words[j+1]) {
			j++
			continue
		}
		break
	}
	if b.Len() == 0 {
		return i, "", false, false
	}
	return j, b.String(), plus, hyphen7
}

// endsSentence reports whether a token closes a sentence.
func endsSentence(tok string) bool {
	tok = strings.TrimRight(tok, "\"'”’)")
	return strings.HasSuffix(tok, ".") || strings.HasSuffix(tok, "?") || strings.HasSuffix(tok, "!")
}

// startsDigits reports whether a token can begin or continue a digit run.
func startsDigits(tok, w string) bool {
	if digitWords[w] != "" || teenWords[w] != "" || tensWords[w] != "" || w == "double" || w == "triple" {
		return true
	}
	raw := trimSentence(tok)
	return writtenDigits.MatchString(raw) && !isoDate.MatchString(raw)
}

func classify(digits string, plus, hyphen7 bool) string {
	n := len(digits)
	switch {
	case n >= 13 && n <= 19 && Luhn(digits):
		return Card
	case plus && n >= 8 && n <= 15:
		return Phone
	case n == 10, n == 11 && (digits[0] == '1' || digits[0] == '0'), hyphen7 && n == 7:
		return Phone
	case n >= 6:
		return Number
	}
	return ""
}

// Luhn reports whether digits (ASCII 0-9 only) pass the Luhn checksum.
func Luhn(digits string) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return len(digits) > 0 && sum%10 == 0
}
