package awstranscribe

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/transcribe/types"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/redact"
)

// transcribeOutput is the part of Transcribe's result JSON we use. Times are
// strings of seconds ("1.53"); punctuation items have no times.
type transcribeOutput struct {
	Status  string `json:"status"`
	Results *struct {
		LanguageCode  string `json:"language_code"`
		Items         []item `json:"items"`
		ChannelLabels *struct {
			Channels []struct {
				ChannelLabel string `json:"channel_label"`
				Items        []item `json:"items"`
			} `json:"channels"`
		} `json:"channel_labels"`
	} `json:"results"`
}

type item struct {
	Type         string `json:"type"` // pronunciation | punctuation
	StartTime    string `json:"start_time"`
	EndTime      string `json:"end_time"`
	ChannelLabel string `json:"channel_label"`
	Alternatives []struct {
		Content    string `json:"content"`
		Confidence string `json:"confidence"`
		// Redactions is set on the items content redaction replaced
		// (content "[PII]"): type is the PII entity type.
		Redactions []struct {
			Type string `json:"type"`
		} `json:"redactions"`
	} `json:"alternatives"`
}

// piiMark is the content of an item Transcribe's content redaction replaced.
const piiMark = "[PII]"

// redactedCategory maps a PII entity type to package redact's category.
// The bank, SSN and PIN types are digit runs: NUMBER.
func redactedCategory(entityType string) string {
	switch entityType {
	case string(types.PiiEntityTypeCreditDebitNumber):
		return redact.Card
	case string(types.PiiEntityTypePhone):
		return redact.Phone
	case string(types.PiiEntityTypeEmail):
		return redact.Email
	}
	return redact.Number
}

// mapResult turns a result JSON into our transcription result: utterances per
// channel (split on pauses longer than pause seconds or after . ? !), merged in
// time order. DurationSeconds is the end of the last word; the caller replaces
// it with the probed duration when it has one.
func mapResult(raw []byte, agentChannel int, pause float64) (*callscribe.TranscriptionResult, error) {
	var out transcribeOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("transcription output is not valid JSON: %v", err)
	}
	if out.Results == nil {
		return nil, errors.New(`transcription output has no "results"`)
	}
	b := segmenter{pause: pause, agentChannel: agentChannel}
	if cl := out.Results.ChannelLabels; cl != nil && len(cl.Channels) > 0 {
		for _, ch := range cl.Channels {
			channel, err := channelNumber(ch.ChannelLabel)
			if err != nil {
				return nil, err
			}
			if err := b.add(ch.Items, func(item) (int, error) { return channel, nil }); err != nil {
				return nil, err
			}
		}
	} else {
		// Mono (no channel identification): everything is channel 0, unless the
		// items carry their own labels.
		err := b.add(out.Results.Items, func(it item) (int, error) {
			if it.ChannelLabel == "" {
				return 0, nil
			}
			return channelNumber(it.ChannelLabel)
		})
		if err != nil {
			return nil, err
		}
	}
	// Merge the channels' utterances into one conversation. Stable, so one
	// channel's utterances keep their order; ties go to the lower channel.
	slices.SortStableFunc(b.segs, func(x, y callscribe.Segment) int {
		if x.TimeStart != y.TimeStart {
			return cmp.Compare(x.TimeStart, y.TimeStart)
		}
		return x.SpeakerID - y.SpeakerID
	})
	if b.segs == nil {
		b.segs = []callscribe.Segment{}
	}
	for i := range b.segs {
		b.segs[i].Confidence = callscribe.MeanConfidence(b.segs[i].Words)
	}
	words := b.words
	res := &callscribe.TranscriptionResult{DurationSeconds: b.lastEnd, WordsCount: &words, Transcript: b.segs}
	if lc := strings.TrimSpace(out.Results.LanguageCode); lc != "" {
		res.Language = &lc
	}
	return res, nil
}

// channelNumber reads "ch_0" / "ch_1".
func channelNumber(label string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(label, "ch_"))
	if err != nil || !strings.HasPrefix(label, "ch_") || n < 0 || n > 1 {
		return 0, fmt.Errorf("unexpected channel label %q", label)
	}
	return n, nil
}

// segmenter groups items into utterances.
type segmenter struct {
	pause        float64
	agentChannel int
	segs         []callscribe.Segment
	words        int
	lastEnd      float64
}

// add groups one run of items. Consecutive words of a channel belong to one
// utterance until a pause longer than s.pause or a sentence end.
func (s *segmenter) add(items []item, channelOf func(item) (int, error)) error {
	// open[channel] is the index in s.segs of the channel's open utterance.
	open := map[int]int{}
	for _, it := range items {
		if len(it.Alternatives) == 0 {
			continue
		}
		content := strings.TrimSpace(it.Alternatives[0].Content)
		if content == "" {
			continue
		}
		redacted := content == piiMark
		if redacted {
			entity := ""
			if r := it.Alternatives[0].Redactions; len(r) > 0 {
				entity = r[0].Type
			}
			content = redact.Token(redactedCategory(entity))
		}
		ch, err := channelOf(it)
		if err != nil {
			return err
		}
		idx, isOpen := open[ch]
		if it.Type == "punctuation" {
			// Punctuation joins the word before it; a sentence end closes the
			// utterance. Punctuation with nothing open has nothing to attach to.
			if isOpen {
				s.segs[idx].Text += content
				if strings.ContainsAny(content, ".?!") {
					delete(open, ch)
				}
			}
			continue
		}
		start, err1 := seconds(it.StartTime)
		end, err2 := seconds(it.EndTime)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		s.words++
		s.lastEnd = math.Max(s.lastEnd, end)
		if isOpen && redacted && start-s.segs[idx].TimeEnd <= s.pause {
			// One item spoken as several words ("four two four two ..."),
			// marked item by item: one token word spanning them all.
			seg := &s.segs[idx]
			if last := &seg.Words[len(seg.Words)-1]; last.Text == content {
				last.End = math.Max(last.End, end)
				seg.TimeEnd = math.Max(seg.TimeEnd, end)
				continue
			}
		}
		w := callscribe.Word{Text: content, Start: start, End: end, Confidence: confidence(it.Alternatives[0].Confidence)}
		if isOpen && start-s.segs[idx].TimeEnd > s.pause {
			isOpen = false
		}
		if !isOpen {
			s.segs = append(s.segs, callscribe.Segment{
				Text: content, TimeStart: start, TimeEnd: end,
				SpeakerID: ch, SpeakerAlias: callscribe.SpeakerAlias(ch, s.agentChannel),
				Words: []callscribe.Word{w},
			})
			open[ch] = len(s.segs) - 1
			continue
		}
		s.segs[idx].Text += " " + content
		s.segs[idx].Words = append(s.segs[idx].Words, w)
		s.segs[idx].TimeEnd = math.Max(s.segs[idx].TimeEnd, end)
	}
	return nil
}

func seconds(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("word time %q is not a number of seconds", s)
	}
	return f, nil
}

// confidence reads an alternative's confidence ("0.998"), clamped to [0, 1];
// nil when it is missing or not a number, which costs the word its confidence
// rather than the job its transcript.
func confidence(s string) *float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return nil
	}
	f = min(max(f, 0), 1)
	return &f
}
