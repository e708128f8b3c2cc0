package transcriptexport

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func ptr[T any](v T) *T { return &v }

// call is a realistic two-speaker transcript with the cases the formats must
// handle: a long segment (over 7 s and over two lines) that the other speaker
// talks over (segments are in order of start, so the overlap's cue falls
// between the long segment's cues), markup-like text and the timing arrow, a
// line break inside a segment, a blank segment, one word in a segment longer
// than a cue may last (the recogniser counted the pause after it), and a
// segment past the first hour.
var call = &callscribe.TranscriptionResult{
	Language: ptr("en"), DurationSeconds: 3725.4, WordsCount: ptr(88),
	Transcript: []callscribe.Segment{
		{Text: "Thank you for calling, this is Ann. How can I help?", TimeStart: 0.5, TimeEnd: 3.2, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "Hi, I was charged twice for my subscription this month and I would really like to get one of those payments refunded as soon as possible please", TimeStart: 3.9, TimeEnd: 14.6, SpeakerID: 1, SpeakerAlias: "User"},
		{Text: "Mm-hmm.", TimeStart: 8.0, TimeEnd: 8.4, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "I see <b>two</b> charges & one refund --> pending.\nLet me fix that ---> now.", TimeStart: 15.0, TimeEnd: 19.0, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "   ", TimeStart: 19.5, TimeEnd: 20, SpeakerID: 1, SpeakerAlias: "User"},
		{Text: "Okay.", TimeStart: 21.0, TimeEnd: 30.5, SpeakerID: 1, SpeakerAlias: "User"},
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

// checkCues holds parsed cues to the rules: in time order, each at most
// MaxCueSeconds long with at most MaxCueLines lines of at most MaxLineChars
// characters (a longer line is a single word). Then, segment by segment, the
// next cues naming the segment's speaker must lie within its span and carry
// its words in order, as shownText says the format writes them; no cue may be
// left over. It returns how many cues each segment became.
func checkCues(t *testing.T, r *callscribe.TranscriptionResult, cues []parsedCue, speakerOf func(line string) (speaker, rest string), shownText func(string) string) []int {
	t.Helper()
	type readCue struct {
		index      int
		start, end float64
		words      []string
	}
	bySpeaker := map[string][]readCue{}
	prevStart := -1.0
	for i, c := range cues {
		if c.start < prevStart || c.end < c.start {
			t.Errorf("cue %d: %v --> %v out of order", i, c.start, c.end)
		}
		prevStart = c.start
		if c.end-c.start > MaxCueSeconds+0.001 {
			t.Errorf("cue %d lasts %.3f s", i, c.end-c.start)
		}
		if len(c.lines) == 0 || len(c.lines) > MaxCueLines {
			t.Errorf("cue %d has %d lines", i, len(c.lines))
		}
		var speaker string
		var words []string
		for j, l := range c.lines {
			shown := l
			if j == 0 {
				speaker, l = speakerOf(l)
				if speaker == "" {
					t.Errorf("cue %d names no speaker: %q", i, shown)
				}
				if strings.HasPrefix(shown, "<v ") {
					shown = l // a voice span is not shown as text
				}
			}
			if n := utf8.RuneCountInString(shown); n > MaxLineChars && strings.Contains(l, " ") {
				t.Errorf("cue %d line %q is %d characters", i, shown, n)
			}
			words = append(words, strings.Fields(l)...)
		}
		bySpeaker[speaker] = append(bySpeaker[speaker], readCue{i, c.start, c.end, words})
	}
	const rounding = 0.0005 // times are written to the millisecond
	perSegment := make([]int, len(r.Transcript))
	for i, seg := range r.Transcript {
		want := strings.Fields(shownText(seg.Text))
		var got []string
		queue := bySpeaker[seg.SpeakerAlias]
		for len(got) < len(want) && len(queue) > 0 {
			c := queue[0]
			queue = queue[1:]
			perSegment[i]++
			if c.start < seg.TimeStart-rounding || c.end > seg.TimeEnd+rounding {
				t.Errorf("cue %d (%v --> %v) lies outside its segment (%v to %v)", c.index, c.start, c.end, seg.TimeStart, seg.TimeEnd)
			}
			got = append(got, c.words...)
		}
		bySpeaker[seg.SpeakerAlias] = queue
		if !slices.Equal(got, want) {
			t.Errorf("segment %d (%s): cues carry %q, want %q", i, seg.SpeakerAlias, got, want)
		}
	}
	for speaker, left := range bySpeaker {
		if len(left) > 0 {
			t.Errorf("%d cue(s) of %q belong to no segment, from cue %d", len(left), speaker, left[0].index)
		}
	}
	return perSegment
}

// longSegment is the index in call of the User segment over 7 s and over two
// lines of text.
const longSegment = 1

func TestSRTParsesBackWithinTheLimits(t *testing.T) {
	cues := parseSRT(t, string(export(t, SRT, call)))
	perSegment := checkCues(t, call, cues, func(l string) (string, string) {
		speaker, rest, _ := strings.Cut(l, ": ")
		return speaker, rest
	}, func(text string) string {
		// SRT has no escapes: a run of hyphens before ">" is written "->".
		return hyphensBeforeGreater.ReplaceAllString(text, "->")
	})
	if perSegment[longSegment] < 2 {
		t.Errorf("the long segment became %d cue(s)", perSegment[longSegment])
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
	perSegment := checkCues(t, call, cues, func(l string) (string, string) {
		if !strings.HasPrefix(l, "<v ") {
			return "", l
		}
		speaker, rest, _ := strings.Cut(strings.TrimPrefix(l, "<v "), ">")
		return speaker, rest
	}, func(text string) string { return text })
	if perSegment[longSegment] < 2 {
		t.Errorf("the long segment became %d cue(s)", perSegment[longSegment])
	}
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
	if strings.Count(got, "\n") != 6 {
		t.Errorf("want one line per non-blank segment (6):\n%s", got)
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

// A segment carrying its words is cued by their times: five words said in the
// first 2 s and five more after a pause make two cues that follow the speech,
// and the JSON file carries the words. Words that do not match the text's
// words are not trusted: the segment is interpolated.
func TestCuesFollowTheEnginesWordTimes(t *testing.T) {
	conf := 0.8
	seg := callscribe.Segment{Text: "One, two three four five. Six seven eight nine ten.", TimeStart: 0, TimeEnd: 10, SpeakerAlias: "Agent"}
	for i, w := range strings.Fields("One two three four five Six seven eight nine ten") {
		start := 0.4 * float64(i)
		if i >= 5 {
			start = 8 + 0.4*float64(i-5)
		}
		seg.Words = append(seg.Words, callscribe.Word{Text: w, Start: start, End: start + 0.4, Confidence: &conf})
	}
	cues := Cues([]callscribe.Segment{seg}, segmentWords, false)
	if len(cues) != 2 || cues[0].Start != 0 || math.Abs(cues[0].End-2) > 1e-9 || cues[1].Start != 8 || math.Abs(cues[1].End-10) > 1e-9 ||
		cues[0].Lines[0] != "One, two three four five." {
		t.Errorf("cues %+v, want 0-2 s and 8-10 s", cues)
	}
	if interpolated := Cues([]callscribe.Segment{seg}, interpolatedWords, false); reflect.DeepEqual(interpolated, cues) {
		t.Fatalf("interpolation gives the same cues %+v: the test shows nothing", cues)
	}

	short := seg
	short.Words = seg.Words[:9]
	if got, want := segmentWords(short), interpolatedWords(short); !reflect.DeepEqual(got, want) {
		t.Errorf("nine words for ten: %+v, want the interpolation %+v", got, want)
	}

	out := string(export(t, JSON, &callscribe.TranscriptionResult{Transcript: []callscribe.Segment{seg}}))
	if !strings.Contains(out, `"words": [`) || !strings.Contains(out, `"text": "Six",`) || !strings.Contains(out, `"confidence": 0.8`) {
		t.Errorf("the JSON file lacks the words:\n%s", out)
	}
}
