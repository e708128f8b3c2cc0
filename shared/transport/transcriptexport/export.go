// Package transcriptexport writes a finished transcript as a file people and
// tools use: plain text, SubRip (SRT), WebVTT or the JSON result. One package
// serves the API's export route, the dashboard's downloads and any client, so
// every consumer gets the same files.
//
// Subtitle cues follow the usual broadcast limits: at most 7 seconds and at
// most 2 lines of 42 characters, split at word boundaries (a single word longer
// than a line gets a line of its own rather than being cut, and one that lasts
// longer than 7 s is shown for 7 s). Cues are timed by the engine's word
// times when a segment carries its words; otherwise a word's time is
// interpolated in proportion to the characters before it in its segment. The
// JSON file is the result itself, words included. Each cue names its speaker: WebVTT as a voice span
// (<v Agent>), SRT and text as an "Agent: " prefix.
//
// Transcript text is untrusted (it is whatever was said on a call). WebVTT
// escapes &, < and > so no text becomes markup; SRT has no escape mechanism, so
// its text is written as said, except that the timing arrow "-->" (and any
// longer run of hyphens before ">") is written "->": a line containing the
// arrow would read as a timing line. Line breaks inside a
// segment's text are folded to spaces in every format.
package transcriptexport

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Format is an export format.
type Format string

// The formats.
const (
	TXT  Format = "txt"
	SRT  Format = "srt"
	VTT  Format = "vtt"
	JSON Format = "json"
)

// Formats lists every format, for messages and clients.
var Formats = []Format{TXT, SRT, VTT, JSON}

// ParseFormat accepts exactly the format names (lower case).
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", callscribe.Errorf(callscribe.CodeInvalidFormat, "format must be one of txt, srt, vtt, json.")
}

// ContentType is the media type a file of the format is served as.
func (f Format) ContentType() string {
	switch f {
	case TXT:
		return "text/plain; charset=utf-8"
	case SRT:
		return "application/x-subrip; charset=utf-8"
	case VTT:
		return "text/vtt; charset=utf-8"
	}
	return "application/json"
}

// Extension is the file name extension of the format (without the dot).
func (f Format) Extension() string { return string(f) }

// Cue limits.
const (
	MaxCueSeconds = 7.0
	MaxCueLines   = 2
	MaxLineChars  = 42
)

// Write writes the transcript in format f.
func Write(w io.Writer, f Format, r *callscribe.TranscriptionResult) error {
	switch f {
	case TXT:
		return writeTXT(w, r.Transcript)
	case SRT:
		return writeSRT(w, Cues(r.Transcript, segmentWords, true))
	case VTT:
		return writeVTT(w, Cues(r.Transcript, segmentWords, false))
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return callscribe.Errorf(callscribe.CodeInvalidFormat, "unknown format %q", f)
}

// foldText folds a segment's line breaks and runs of blanks to single spaces.
func foldText(s string) string { return strings.Join(strings.Fields(s), " ") }

// clock writes seconds as [h:]mm:ss for text; hours only past the first.
func clock(seconds float64) string {
	total := int(math.Max(0, seconds))
	h, m, s := total/3600, total/60%60, total%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%02d:%02d", m, s)
}

func writeTXT(w io.Writer, segs []callscribe.Segment) error {
	var b strings.Builder
	for _, seg := range segs {
		text := foldText(seg.Text)
		if text == "" {
			continue
		}
		fmt.Fprintf(&b, "[%s] %s: %s\n", clock(seg.TimeStart), seg.SpeakerAlias, text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// timestamp writes HH:MM:SS<sep>mmm, rounded to the millisecond.
func timestamp(seconds float64, sep string) string {
	ms := int64(math.Round(math.Max(0, seconds) * 1000))
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
}

func writeSRT(w io.Writer, cues []Cue) error {
	var b strings.Builder
	for i, c := range cues {
		fmt.Fprintf(&b, "%d\n%s --> %s\n", i+1, timestamp(c.Start, ","), timestamp(c.End, ","))
		for j, line := range c.Lines {
			if j == 0 && c.Speaker != "" {
				line = c.Speaker + ": " + line
			}
			b.WriteString(withoutTimingArrow(line))
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// withoutTimingArrow shortens every "-->" in SRT text to "->" (a reader takes
// a line containing the arrow for a timing line). It repeats until none is
// left, as one pass turns "--->" into "-->": in effect any run of hyphens
// before ">" becomes one.
func withoutTimingArrow(line string) string {
	for strings.Contains(line, "-->") {
		line = strings.ReplaceAll(line, "-->", "->")
	}
	return line
}

var vttEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func writeVTT(w io.Writer, cues []Cue) error {
	var b strings.Builder
	b.WriteString("WEBVTT\n\n")
	for _, c := range cues {
		fmt.Fprintf(&b, "%s --> %s\n", timestamp(c.Start, "."), timestamp(c.End, "."))
		for j, line := range c.Lines {
			if j == 0 && c.Speaker != "" {
				b.WriteString("<v " + vttEscaper.Replace(c.Speaker) + ">")
			}
			b.WriteString(vttEscaper.Replace(line))
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
