package redact

import (
	"reflect"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestLuhn(t *testing.T) {
	for digits, want := range map[string]bool{
		"4242424242424242": true, "4111111111111111": true, "378282246310005": true, "6011111111111117": true,
		"4242424242424241": false, "1234567890123456": false, "": false, "42a2": false,
	} {
		if got := Luhn(digits); got != want {
			t.Errorf("Luhn(%q) = %v, want %v", digits, got, want)
		}
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Cards: written, grouped, spoken, with "double"; Luhn failures are numbers.
		{"card 4242 4242 4242 4242 thanks", "card [REDACTED:CARD] thanks"},
		{"card 4242-4242-4242-4242.", "card [REDACTED:CARD]."},
		{"four two four two four two four two four two four two four two four two", "[REDACTED:CARD]"},
		{"it's four one double one one one one one one one one one one one one one ok", "it's [REDACTED:CARD] ok"},
		{"card 4242 4242 4242 4241 thanks", "card [REDACTED:NUMBER] thanks"},
		{"four to four two four two four two four two four two four two four two", "[REDACTED:CARD]"},
		{"It's H S, four four seven, two one nine, eight.", "It's H S, [REDACTED:NUMBER]."},
		{"Oh one six two three, four four eight, nine one oh.", "[REDACTED:PHONE]."},
		{"order P L four oh eight one two. Sixteen days in production", "order P L four oh eight one two. Sixteen days in production"},
		{"Account ending four four one nine. Eleven years", "Account ending four four one nine. Eleven years"},
		// Phones: written formats, spoken with "oh" and "double", a plus.
		{"call (555) 123-4567 now", "call [REDACTED:PHONE] now"},
		{"call 555-123-4567", "call [REDACTED:PHONE]"},
		{"call 555.123.4567 now", "call [REDACTED:PHONE] now"},
		{"call +44 20 7946 0958", "call [REDACTED:PHONE]"},
		{"ring 555-1234 please", "ring [REDACTED:PHONE] please"},
		{"five five five oh one two three four five six", "[REDACTED:PHONE]"},
		{"it is oh seven seven double oh nine double oh one two three", "it is [REDACTED:PHONE]"},
		{"plus four four two oh seven nine four six oh nine five eight", "[REDACTED:PHONE]"},
		// Numbers: six or more digits.
		{"account 123456 please", "account [REDACTED:NUMBER] please"},
		{"account one two three four five six please", "account [REDACTED:NUMBER] please"},
		{"order forty two seventy one nineteen", "order [REDACTED:NUMBER]"},
		// E-mail: written and spoken.
		{"mail jane.doe+x@example.co.uk, thanks", "mail [REDACTED:EMAIL], thanks"},
		{"it is john dot smith at example dot com okay", "it is [REDACTED:EMAIL] okay"},
		{"john at example.com", "[REDACTED:EMAIL]"},
		{"my email is jane underscore doe at mail dot example dot org", "my email is [REDACTED:EMAIL]"},
		// ... and with its "at" misheard, as a poor line makes it.
		{"my email is john f. example dot com", "my email is [REDACTED:EMAIL]"},
		{"it's maria add example dot org thanks", "it's [REDACTED:EMAIL] thanks"},
		{"my email is john as an example dot com", "my email is [REDACTED:EMAIL]"},
		{"write to sam it the mail dot example dot net today", "write to [REDACTED:EMAIL] today"},
		{"jane at the example.org", "[REDACTED:EMAIL]"},
		// Left alone.
		{"one or two things", "one or two things"},
		{"from one to two weeks, four for five", "from one to two weeks, four for five"},
		{"for two days", "for two days"},
		{"see you at two thirty", "see you at two thirty"},
		{"at nine thirty five tomorrow", "at nine thirty five tomorrow"},
		{"oh I see, oh well", "oh I see, oh well"},
		{"12345 is five digits", "12345 is five digits"},
		{"it cost $1,250,000", "it cost $1,250,000"},
		{"look at the dot com bubble", "look at the dot com bubble"},
		{"meet me at home", "meet me at home"},
		{"we had a dot com job", "we had a dot com job"},
		{"I had example dot com open", "I had example dot com open"},
		{"it is as a dot com", "it is as a dot com"},
		{"as good as an example", "as good as an example"},
		{"back in twenty twenty four", "back in twenty twenty four"},
		{"at 10:30 on 2024-05-01", "at 10:30 on 2024-05-01"},
		// An engine's own tokens are counted, not redacted again.
		{"call [REDACTED:PHONE]. bye", "call [REDACTED:PHONE]. bye"},
	} {
		got, counts := Text(c.in)
		if got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
		if want := strings.Count(c.want, "[REDACTED:"); counts.Total() != want {
			t.Errorf("Text(%q) counted %v, want %d items", c.in, counts, want)
		}
	}
}

func TestTextKeepsSpacing(t *testing.T) {
	in := "Agent: your number?\nUser:  4242424242424242\n\tbye"
	got, counts := Text(in)
	if want := "Agent: your number?\nUser:  [REDACTED:CARD]\n\tbye"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(counts, Counts{Card: 1}) {
		t.Errorf("counts = %v", counts)
	}
}

func words(text string, start, step float64) []callscribe.Word {
	var ws []callscribe.Word
	for i, w := range strings.Fields(text) {
		c := 0.5
		ws = append(ws, callscribe.Word{Text: w, Start: start + float64(i)*step, End: start + float64(i+1)*step, Confidence: &c})
	}
	return ws
}

func TestSegments(t *testing.T) {
	text := "my card is four two four two four two four two four two four two four two four two and mail bob at example dot com"
	seg := callscribe.Segment{Text: text, TimeStart: 1, TimeEnd: 26, Words: words(text, 1, 1)}
	plain := callscribe.Segment{Text: "Call me on 555-123-4567.", TimeStart: 30, TimeEnd: 34}
	clean := callscribe.Segment{Text: "one or two things", TimeStart: 40, TimeEnd: 44, Words: words("one or two things", 40, 1)}
	in := []callscribe.Segment{seg, plain, clean}
	out, counts, spans := Segments(in)

	if want := "my card is [REDACTED:CARD] and mail [REDACTED:EMAIL]"; out[0].Text != want {
		t.Errorf("text = %q, want %q", out[0].Text, want)
	}
	var got []string
	for _, w := range out[0].Words {
		got = append(got, w.Text)
	}
	if want := strings.Fields(out[0].Text); !reflect.DeepEqual(got, want) {
		t.Errorf("words = %q, want %q", got, want)
	}
	card := out[0].Words[3]
	if card.Start != 4 || card.End != 20 {
		t.Errorf("card word spans %v..%v, want 4..20 (the sixteen digit words)", card.Start, card.End)
	}
	email := out[0].Words[6]
	if email.Start != 22 || email.End != 27 {
		t.Errorf("email word spans %v..%v, want 22..27", email.Start, email.End)
	}
	if out[1].Text != "Call me on [REDACTED:PHONE]." {
		t.Errorf("plain segment = %q", out[1].Text)
	}
	if !reflect.DeepEqual(out[2], clean) {
		t.Errorf("clean segment changed: %+v", out[2])
	}
	if want := (Counts{Card: 1, Email: 1, Phone: 1}); !reflect.DeepEqual(counts, want) {
		t.Errorf("counts = %v, want %v", counts, want)
	}
	if want := []Span{{4, 20}, {22, 27}, {30, 34}}; !reflect.DeepEqual(spans, want) {
		t.Errorf("spans = %v, want %v", spans, want)
	}
	if in[0].Text != text || len(in[0].Words) != len(strings.Fields(text)) {
		t.Error("Segments modified its input")
	}
}

// A card number read in two breaths, which the recogniser gave as two
// segments of the speaker with the other's "okay" between, is one card: a
// token in each segment, counted once; a later segment past MaxChainGap
// starts afresh.
func TestSegmentsAcrossAPause(t *testing.T) {
	first := "my card is four two four two four two four two"
	second := "four two four two four two four two thanks"
	late := "one two three"
	in := []callscribe.Segment{
		{Text: first, TimeStart: 0, TimeEnd: 11, SpeakerID: 1, Words: words(first, 0, 1)},
		{Text: "okay", TimeStart: 11.2, TimeEnd: 11.6, SpeakerID: 0, Words: words("okay", 11.2, 0.4)},
		{Text: second, TimeStart: 12, TimeEnd: 21, SpeakerID: 1, Words: words(second, 12, 1)},
		{Text: late, TimeStart: 25, TimeEnd: 28, SpeakerID: 1, Words: words(late, 25, 1)},
	}
	out, counts, spans := Segments(in)
	if out[0].Text != "my card is [REDACTED:CARD]" || out[2].Text != "[REDACTED:CARD] thanks" {
		t.Errorf("texts %q and %q", out[0].Text, out[2].Text)
	}
	if out[1].Text != "okay" || out[3].Text != late {
		t.Errorf("other segments changed: %q, %q", out[1].Text, out[3].Text)
	}
	if !reflect.DeepEqual(counts, Counts{Card: 1}) {
		t.Errorf("counts = %v, want one card", counts)
	}
	if want := []Span{{3, 11}, {12, 20}}; !reflect.DeepEqual(spans, want) {
		t.Errorf("spans = %v, want %v", spans, want)
	}
	// A phone number's groups join within MaxChainGap; past it, the second
	// group alone is a digit run.
	for gap, want := range map[float64]Counts{1: {Phone: 1}, MaxChainGap + 0.5: {Number: 1}} {
		a, b := "call me on five five five", "one two three four five six seven"
		phone := []callscribe.Segment{
			{Text: a, TimeStart: 0, TimeEnd: 6, SpeakerID: 1, Words: words(a, 0, 1)},
			{Text: b, TimeStart: 6 + gap, TimeEnd: 13 + gap, SpeakerID: 1, Words: words(b, 6+gap, 1)},
		}
		if _, counts, _ := Segments(phone); !reflect.DeepEqual(counts, want) {
			t.Errorf("gap %v s: counts = %v, want %v", gap, counts, want)
		}
	}
}
