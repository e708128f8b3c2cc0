package transcribe

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/redact"
)

// The result JSON, in Transcribe's shape and member names.

type outputDoc struct {
	JobName   string        `json:"jobName"`
	AccountID string        `json:"accountId"`
	Status    string        `json:"status"`
	Results   outputResults `json:"results"`
}

type outputResults struct {
	LanguageCode  string               `json:"language_code,omitempty"`
	Transcripts   []outputTranscript   `json:"transcripts"`
	ChannelLabels *outputChannelLabels `json:"channel_labels,omitempty"`
	Items         []outputItem         `json:"items"`
	AudioSegments []outputAudioSegment `json:"audio_segments"`
}

type outputTranscript struct {
	Transcript string `json:"transcript"`
}

type outputChannelLabels struct {
	Channels         []outputChannel `json:"channels"`
	NumberOfChannels int             `json:"number_of_channels"`
}

type outputChannel struct {
	ChannelLabel string       `json:"channel_label"`
	Items        []outputItem `json:"items"`
}

type outputItem struct {
	ID           int                 `json:"id"`
	ChannelLabel string              `json:"channel_label,omitempty"`
	Type         string              `json:"type"`
	StartTime    string              `json:"start_time,omitempty"`
	EndTime      string              `json:"end_time,omitempty"`
	Alternatives []outputAlternative `json:"alternatives"`
}

type outputAlternative struct {
	Confidence string            `json:"confidence"`
	Content    string            `json:"content"`
	Redactions []outputRedaction `json:"redactions,omitempty"`
}

// outputRedaction marks an item content redaction replaced.
type outputRedaction struct {
	Confidence string `json:"confidence"`
	Type       string `json:"type"`
	Category   string `json:"category"`
}

// piiEntities are the PII entity types of package redact's tokens.
var piiEntities = map[string]string{
	redact.Token(redact.Card): "CREDIT_DEBIT_NUMBER", redact.Token(redact.Phone): "PHONE",
	redact.Token(redact.Email): "EMAIL", redact.Token(redact.Number): "BANK_ACCOUNT_NUMBER",
}

// piiMark is the content of a redacted item.
const piiMark = "[PII]"

type outputAudioSegment struct {
	ID           int    `json:"id"`
	Transcript   string `json:"transcript"`
	StartTime    string `json:"start_time"`
	EndTime      string `json:"end_time"`
	ChannelLabel string `json:"channel_label,omitempty"`
	Items        []int  `json:"items"`
}

// token is one word or punctuation mark of an utterance. Punctuation has no
// times.
type token struct {
	content     string
	punctuation bool
	start, end  float64
	// confidence is the engine's, nil when it gives none.
	confidence *float64
	// entity is the PII entity type of a redacted word ("" for others).
	entity string
}

// punctuationMarks are the marks that become punctuation items when they end a
// word of the engine's text.
const punctuationMarks = ".,?!"

// timedWords is the one place word times come from. When the segment carries
// its words (one per word of its text) their times and confidences are used;
// otherwise the words share the utterance's span evenly, in order, the last
// ending exactly at the utterance's end.
func timedWords(seg callscribe.Segment) []token {
	var toks []token
	words := 0
	for _, field := range strings.Fields(seg.Text) {
		word := strings.TrimRight(field, punctuationMarks)
		if word != "" {
			toks = append(toks, token{content: word})
			words++
		}
		for _, mark := range field[len(word):] {
			toks = append(toks, token{content: string(mark), punctuation: true})
		}
	}
	if words == 0 {
		return toks
	}
	if len(seg.Words) == words {
		i := 0
		for k := range toks {
			if toks[k].punctuation {
				continue
			}
			w := seg.Words[i]
			toks[k].start, toks[k].end, toks[k].confidence = w.Start, w.End, w.Confidence
			i++
		}
		return toks
	}
	span := max(seg.TimeEnd-seg.TimeStart, 0)
	i := 0
	for k := range toks {
		if toks[k].punctuation {
			continue
		}
		toks[k].start = seg.TimeStart + span*float64(i)/float64(words)
		toks[k].end = seg.TimeStart + span*float64(i+1)/float64(words)
		i++
	}
	return toks
}

// seconds formats a time as Transcribe does: a string of seconds with
// millisecond precision.
func seconds(t float64) string {
	return strconv.FormatFloat(t, 'f', 3, 64)
}

func channelLabel(speaker int) string { return fmt.Sprintf("ch_%d", speaker) }

// buildOutput is the result JSON of a completed job. channels > 0 asks for
// channel identification over that many channels, each segment's speaker_id
// being its channel; language is the identified language, "" when the job had
// a LanguageCode.
func buildOutput(jobName string, transcript []callscribe.Segment, channels int, language string) outputDoc {
	segs := slices.Clone(transcript)
	slices.SortStableFunc(segs, func(a, b callscribe.Segment) int {
		if c := cmp.Compare(a.TimeStart, b.TimeStart); c != 0 {
			return c
		}
		return a.SpeakerID - b.SpeakerID
	})

	// Every token with the utterance it belongs to, ordered by time; a
	// punctuation mark sorts with the word before it.
	type placed struct {
		token
		seg int
		at  float64
	}
	var all []placed
	audioSegs := make([]outputAudioSegment, len(segs))
	for si, seg := range segs {
		toks := timedWords(seg)
		for k := range toks {
			if entity, ok := piiEntities[toks[k].content]; ok {
				toks[k].content, toks[k].entity = piiMark, entity
			}
		}
		at := seg.TimeStart
		for _, t := range toks {
			if !t.punctuation {
				at = t.start
			}
			all = append(all, placed{token: t, seg: si, at: at})
		}
		audioSegs[si] = outputAudioSegment{
			ID: si, Transcript: joinTokens(toks),
			StartTime: seconds(seg.TimeStart), EndTime: seconds(max(seg.TimeEnd, seg.TimeStart)),
			Items: []int{},
		}
		if channels > 0 {
			audioSegs[si].ChannelLabel = channelLabel(seg.SpeakerID)
		}
	}
	slices.SortStableFunc(all, func(a, b placed) int { return cmp.Compare(a.at, b.at) })

	items := make([]outputItem, len(all))
	toks := make([]token, len(all))
	for id, p := range all {
		it := outputItem{ID: id, Type: "pronunciation", Alternatives: []outputAlternative{{Confidence: "1.0", Content: p.content}}}
		if p.punctuation {
			it.Type = "punctuation"
			it.Alternatives[0].Confidence = "0.0"
		} else {
			it.StartTime, it.EndTime = seconds(p.start), seconds(p.end)
			if p.confidence != nil {
				it.Alternatives[0].Confidence = strconv.FormatFloat(*p.confidence, 'f', -1, 64)
			}
			if p.entity != "" {
				it.Alternatives[0].Confidence = "0.0"
				it.Alternatives[0].Redactions = []outputRedaction{{Confidence: "1.0", Type: p.entity, Category: "PII"}}
			}
		}
		if channels > 0 {
			it.ChannelLabel = channelLabel(segs[p.seg].SpeakerID)
		}
		items[id] = it
		toks[id] = p.token
		audioSegs[p.seg].Items = append(audioSegs[p.seg].Items, id)
	}

	res := outputResults{
		LanguageCode:  language,
		Transcripts:   []outputTranscript{{Transcript: joinTokens(toks)}},
		Items:         items,
		AudioSegments: audioSegs,
	}
	if channels > 0 {
		n := channels
		for _, s := range segs {
			n = max(n, s.SpeakerID+1)
		}
		labels := &outputChannelLabels{NumberOfChannels: n}
		for ch := range n {
			c := outputChannel{ChannelLabel: channelLabel(ch), Items: []outputItem{}}
			for _, it := range items {
				if it.ChannelLabel == c.ChannelLabel {
					c.Items = append(c.Items, it)
				}
			}
			labels.Channels = append(labels.Channels, c)
		}
		res.ChannelLabels = labels
	}
	return outputDoc{JobName: jobName, AccountID: AccountID, Status: StatusCompleted, Results: res}
}

// joinTokens writes tokens as text: words separated by spaces, punctuation
// against the word before it.
func joinTokens(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		if b.Len() > 0 && !t.punctuation {
			b.WriteByte(' ')
		}
		b.WriteString(t.content)
	}
	return b.String()
}
