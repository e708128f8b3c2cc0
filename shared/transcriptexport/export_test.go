package transcriptexport

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func ptr[T any](v T) *T { return &v }

// call is a realistic two-speaker transcript with the cases the formats must
// handle: a long segment (over 7 s and over two lines), markup-like text and
// the timing arrow, a line break inside a segment, a blank segment, and a
// segment past the first hour.
var call = &callscribe.TranscriptionResult{
	Language: ptr("en"), DurationSeconds: 3725.4, WordsCount: ptr(88),
	Transcript: []callscribe.Segment{
		{Text: "Thank you for calling, this is Ann. How can I help?", TimeStart: 0.5, TimeEnd: 3.2, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "Hi, I was charged twice for my subscription this month and I would really like to get one of those payments refunded as soon as possible please", TimeStart: 3.9, TimeEnd: 14.6, SpeakerID: 1, SpeakerAlias: "User"},
		{Text: "I see <b>two</b> charges & one refund --> pending.\nLet me fix that ---> now.", TimeStart: 15.0, TimeEnd: 19.0, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "   ", TimeStart: 19.5, TimeEnd: 20, SpeakerID: 1, SpeakerAlias: "User"},
		{Text: "Supercalifragilisticexpialidocious-level-of-service-guaranteed word", TimeStart: 3600.25, TimeEnd: 3602.5, SpeakerID: 1, SpeakerAlias: "User"},
	},
}

var empty = &callscribe.TranscriptionResult{Language: nil, DurationSeconds: 0, Transcript: []callscribe.Segment{}}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

func export(t *testing.T, f Format, r *callscribe.TranscriptionResult) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, f, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGoldenFiles(t *testing.T) {
	for _, f := range Formats {
		golden(t, "call."+f.Extension(), export(t, f, call))
		golden(t, "empty."+f.Extension(), export(t, f, empty))
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	for _, bad := range []string{"", "TXT", "docx", "srt "} {
		if _, err := ParseFormat(bad); !callscribe.IsCode(err, callscribe.CodeInvalidFormat) {
			t.Errorf("ParseFormat(%q) = %v, want INVALID_FORMAT", bad, err)
		}
	}
}

// parsedCue is what an independent reader of SRT/WebVTT sees: written here
// from the formats' rules, not from this package's code.
type parsedCue struct {
	start, end float64
	lines      []string
}

var (
	srtTime = regexp.MustCompile(`^(\d{2}):(\d{2}):(\d{2}),(\d{3}) --> (\d{2}):(\d{2}):(\d{2}),(\d{3})$`)
	vttTime = regexp.MustCompile(`^(\d{2}):(\d{2}):(\d{2})\.(\d{3}) --> (\d{2}):(\d{2}):(\d{2})\.(\d{3})$`)
)

func seconds(m []string) (float64, float64) {
	f := func(h, mi, s, ms string) float64 {
		a, _ := strconv.Atoi(h)
		b, _ := strconv.Atoi(mi)
		c, _ := strconv.Atoi(s)
		d, _ := strconv.Atoi(ms)
		return float64(a*3600+b*60+c) + float64(d)/1000
	}
	return f(m[1], m[2], m[3], m[4]), f(m[5], m[6], m[7], m[8])
}

func parseSRT(t *testing.T, text string) []parsedCue {
	t.Helper()
	var cues []parsedCue
	for i, block := range strings.Split(strings.TrimSuffix(text, "\n\n"), "\n\n") {
		if block == "" {
			continue
		}
		lines := strings.Split(block, "\n")
		if lines[0] != strconv.Itoa(i+1) {
			t.Fatalf("cue %d numbered %q", i+1, lines[0])
		}
		m := srtTime.FindStringSubmatch(lines[1])
		if m == nil {
			t.Fatalf("cue %d timing line %q", i+1, lines[1])
		}
		for _, l := range lines[2:] {
			if strings.Contains(l, "-->") {
				t.Fatalf("cue %d text contains the timing arrow: %q", i+1, l)
			}
		}
		start, end := seconds(m)
		cues = append(cues, parsedCue{start, end, lines[2:]})
	}
	return cues
}

func parseVTT(t *testing.T, text string) []parsedCue {
	t.Helper()
	if !strings.HasPrefix(text, "WEBVTT\n\n") {
		t.Fatalf("no WEBVTT header: %q", text[:min(20, len(text))])
	}
	var cues []parsedCue
	for _, block := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(text, "WEBVTT\n\n"), "\n\n"), "\n\n") {
		if block == "" {
			continue
		}
		lines := strings.Split(block, "\n")
		m := vttTime.FindStringSubmatch(lines[0])
		if m == nil {
			t.Fatalf("timing line %q", lines[0])
		}
		for _, l := range lines[1:] {
			if strings.Contains(l, "-->") {
				t.Fatalf("cue text contains the timing arrow: %q", l)
			}
			// Markup other than the voice span would be an injection.
			if strings.Count(l, "<") != strings.Count(l, "<v ") {
				t.Fatalf("cue text carries markup: %q", l)
			}
		}
		start, end := seconds(m)
		cues = append(cues, parsedCue{start, end, lines[1:]})
	}
	return cues
}

var hyphensBeforeGreater = regexp.MustCompile(`-{2,}>`)

var vttUnescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// checkCues holds parsed cues to the rules and rebuilds each segment's words.
func checkCues(t *testing.T, cues []parsedCue, speakerOf func(line string) (speaker, rest string)) {
	t.Helper()
	var words []string
	prevStart := -1.0
	for i, c := range cues {
		if c.start < prevStart || c.end < c.start {
			t.Errorf("cue %d: %v --> %v out of order", i, c.start, c.end)
		}
		prevStart = c.start
		if c.end-c.start > MaxCueSeconds+0.001 && len(strings.Fields(strings.Join(c.lines, " "))) > 1 {
			t.Errorf("cue %d lasts %.3f s", i, c.end-c.start)
		}
		if len(c.lines) == 0 || len(c.lines) > MaxCueLines {
			t.Errorf("cue %d has %d lines", i, len(c.lines))
		}
		for j, l := range c.lines {
			shown := l
			if j == 0 {
				speaker, rest := speakerOf(l)
				if speaker != "Agent" && speaker != "User" {
					t.Errorf("cue %d names no speaker: %q", i, l)
				}
				l = rest
				if strings.HasPrefix(shown, "<v ") {
					shown = rest // a voice span is not shown as text
				}
			}
			if n := utf8.RuneCountInString(shown); n > MaxLineChars && strings.Contains(l, " ") {
				t.Errorf("cue %d line %q is %d characters", i, shown, n)
			}
			words = append(words, strings.Fields(l)...)
		}
	}
	var want []string
	for _, s := range call.Transcript {
		want = append(want, strings.Fields(s.Text)...)
	}
	got := strings.Join(words, " ")
	// SRT writes a run of hyphens before ">" as "->"; WebVTT keeps the text.
	if exp := hyphensBeforeGreater.ReplaceAllString(strings.Join(want, " "), "->"); got != exp && got != strings.Join(want, " ") {
		t.Errorf("words changed:\n got %q\nwant %q", got, exp)
	}
}

func TestSRTParsesBackWithinTheLimits(t *testing.T) {
	cues := parseSRT(t, string(export(t, SRT, call)))
	checkCues(t, cues, func(l string) (string, string) {
		speaker, rest, _ := strings.Cut(l, ": ")
		return speaker, rest
	})
	// The long User segment (10.7 s, 140 characters) needed more than one cue,
	// each within its segment's span.
	n := 0
	for _, c := range cues {
		if c.start >= 3.9 && c.end <= 14.6+0.001 {
			n++
		}
	}
	if n < 2 {
		t.Errorf("the long segment became %d cue(s)", n)
	}
	if len(parseSRT(t, string(export(t, SRT, empty)))) != 0 {
		t.Error("an empty transcript has cues")
	}
}

func TestVTTParsesBackWithinTheLimits(t *testing.T) {
	cues := parseVTT(t, string(export(t, VTT, call)))
	for i := range cues {
		for j := range cues[i].lines {
			cues[i].lines[j] = vttUnescape.Replace(cues[i].lines[j])
		}
	}
	checkCues(t, cues, func(l string) (string, string) {
		if !strings.HasPrefix(l, "<v ") {
			return "", l
		}
		speaker, rest, _ := strings.Cut(strings.TrimPrefix(l, "<v "), ">")
		return speaker, rest
	})
	if len(parseVTT(t, string(export(t, VTT, empty)))) != 0 {
		t.Error("an empty transcript has cues")
	}
}

func TestTextLines(t *testing.T) {
	got := string(export(t, TXT, call))
	for _, want := range []string{
		"[00:00] Agent: Thank you for calling, this is Ann. How can I help?\n",
		"[00:15] Agent: I see <b>two</b> charges & one refund --> pending. Let me fix that ---> now.\n",
		"[1:00:00] User: Supercalifragilisticexpialidocious-level-of-service-guaranteed word\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("text export lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "\n") != 4 {
		t.Errorf("want one line per non-blank segment (4):\n%s", got)
	}
}

// A line holds 42 characters, not 42 bytes: accented words fill it as far as
// unaccented ones would.
func TestLinesCountCharactersNotBytes(t *testing.T) {
	seg := callscribe.Segment{Text: "Necesito confirmar su número de teléfono, dirección y código postal por favor.", TimeStart: 1, TimeEnd: 6, SpeakerAlias: "Agent"}
	cues := Cues([]callscribe.Segment{seg}, interpolatedWords, false)
	// 41 characters (43 bytes); "dirección" would make it 51.
	if want := "Necesito confirmar su número de teléfono,"; len(cues) != 1 || cues[0].Lines[0] != want {
		t.Fatalf("cues %+v, want the first line %q", cues, want)
	}
	// Interpolation shares the span by characters too: "número" takes as long
	// as "postal".
	words := interpolatedWords(seg)
	numero, postal := words[3], words[9]
	if d1, d2 := numero.End-numero.Start, postal.End-postal.Start; math.Abs(d1-d2) > 1e-9 {
		t.Errorf("%q lasts %v s, %q %v s", numero.Text, d1, postal.Text, d2)
	}
}
