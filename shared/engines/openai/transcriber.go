package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// Transcriber sends each channel of a call to an OpenAI-compatible
// /v1/audio/transcriptions endpoint (OpenAI, whisper.cpp server, faster-whisper
// servers) and maps the segments into the service's result. Channels are sent
// separately because these servers do not diarise: the channel is the speaker.
type Transcriber struct {
	client       *Client
	model        string
	agentChannel int
}

var _ callscribe.Transcriber = (*Transcriber)(nil)

// NewTranscriber returns a provider using model (e.g. "whisper-1"); agentChannel
// is AGENT_CHANNEL.
func NewTranscriber(client *Client, model string, agentChannel int) *Transcriber {
	return &Transcriber{client: client, model: model, agentChannel: agentChannel}
}

// transcriptionResponse is the verbose_json answer. Words is there when the
// server honours timestamp_granularities[]=word (OpenAI puts them at the top
// level; some compatible servers put each segment's in the segment).
type transcriptionResponse struct {
	Text     string  `json:"text"`
	Language string  `json:"language"`
	Duration float64 `json:"duration"`
	Segments []struct {
		Start float64        `json:"start"`
		End   float64        `json:"end"`
		Text  string         `json:"text"`
		Words []responseWord `json:"words"`
	} `json:"segments"`
	Words []responseWord `json:"words"`
	// Error is set by servers that report a failure in a 2xx answer.
	Error json.RawMessage `json:"error"`
}

type responseWord struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// silentPeak is the peak below which a channel is treated as silent and not
// sent: Whisper-style models invent words ("Thank you.") for silence.
const silentPeak = 64

// Transcribe splits the audio by channel, transcribes the channels in parallel
// and merges their segments in time order.
func (t *Transcriber) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	format := decode.Format(req.Format)
	if format == "" {
		format = decode.Sniff(req.Audio)
	}
	if format == decode.MP3 && !decode.MP3Supported() {
		// This build cannot split MP3 (no cgo): send the file whole and
		// attribute it to channel 0.
		r, err := t.send(ctx, req.Audio, "audio.mp3", req.Language, req.Keyterms)
		if err != nil {
			return nil, err
		}
		return withKeyterms(t.result([]*transcriptionResponse{r}, r.Duration, req.Language), req.Keyterms), nil
	}
	audio, err := decode.Decode(req.Audio, format)
	if err != nil {
		return nil, &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "The audio could not be decoded: " + err.Error()}
	}
	resps := make([]*transcriptionResponse, len(audio.Channels))
	errs := make([]error, len(audio.Channels))
	var wg sync.WaitGroup
	for ch, pcm := range audio.Channels {
		if peak(pcm) < silentPeak {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Re-encoding one channel as 16-bit WAV at its own rate is lossless for
			// PCM input and is accepted by every compatible server.
			var wav bytes.Buffer
			if err := decode.WriteWAV(&wav, audio.SampleRate, pcm); err != nil {
				errs[ch] = err
				return
			}
			resps[ch], errs[ch] = t.send(ctx, wav.Bytes(), fmt.Sprintf("channel%d.wav", ch), req.Language, req.Keyterms)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return withKeyterms(t.result(resps, audio.Duration(), req.Language), req.Keyterms), nil
}

// keytermsPrompt is the prompt that carries a job's keyterms: Whisper
// conditions on a prompt as on preceding text, so spellings in it are
// favoured. (The model reads only about its last 224 tokens.)
func keytermsPrompt(keyterms []string) string {
	if len(keyterms) == 0 {
		return ""
	}
	return "Terms: " + strings.Join(keyterms, ", ") + "."
}

// withKeyterms records in res that the job's keyterms went in the prompt.
func withKeyterms(res *callscribe.TranscriptionResult, keyterms []string) *callscribe.TranscriptionResult {
	if len(keyterms) == 0 {
		return res
	}
	r := callscribe.NewKeytermsReport(callscribe.KeytermsPrompt)
	r.Applied = append(r.Applied, keyterms...)
	r.Note = "Sent to the model as its prompt; a Whisper model has no pronouncing dictionary, so no word is unknown to it."
	res.MetaData = &callscribe.TranscriptionMetaData{Keyterms: r}
	return res
}

func peak(pcm []int16) int {
	p := 0
	for _, v := range pcm {
		a := int(v)
		if a < 0 {
			a = -a
		}
		if a > p {
			p = a
		}
	}
	return p
}

// send posts one audio file and parses the verbose_json answer.
func (t *Transcriber) send(ctx context.Context, audio []byte, filename, language string, keyterms []string) (*transcriptionResponse, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	// Both granularities: asking for words alone makes OpenAI leave out the
	// segments. A server that ignores the word granularity still answers
	// with segments, which then carry no words.
	fields := [][2]string{{"model", t.model}, {"response_format", "verbose_json"}, {"timestamp_granularities[]", "segment"}, {"timestamp_granularities[]", "word"}}
	if lang := primaryLanguage(language); lang != "" {
		fields = append(fields, [2]string{"language", lang})
	}
	if prompt := keytermsPrompt(keyterms); prompt != "" {
		fields = append(fields, [2]string{"prompt", prompt})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(audio); err != nil {
		return nil, err
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, t.client.endpoint("/v1/audio/transcriptions"), &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	b, err := t.client.do(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			// Our own deadline or shutdown, not the provider's fault: a plain error
			// lets the job be retried.
			return nil, fmt.Errorf("openai transcription: %w", ctx.Err())
		}
		return nil, err
	}
	var r transcriptionResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, providerFailure("invalid_response", fmt.Sprintf("provider answered with invalid JSON: %v", err))
	}
	if r.Segments == nil && r.Error != nil && string(r.Error) != "null" {
		// whisper.cpp's server answers a file it cannot read, or a failed
		// decode, with HTTP 200 and {"error": "..."}.
		code, msg := parseProviderError(b)
		if code == "" {
			code = "invalid_response"
		}
		return nil, providerFailure(code, "provider answered with an error: "+msg)
	}
	if r.Segments == nil && strings.TrimSpace(r.Text) != "" {
		return nil, providerFailure("invalid_response", "provider answered without segments; it must support response_format=verbose_json")
	}
	return &r, nil
}

// result maps the per-channel answers (nil for a skipped silent channel).
func (t *Transcriber) result(resps []*transcriptionResponse, duration float64, hint string) *callscribe.TranscriptionResult {
	segs := []callscribe.Segment{}
	words := 0
	detected := ""
	for ch, r := range resps {
		if r == nil {
			continue
		}
		if detected == "" {
			detected = languageCode(r.Language)
		}
		perSegment := segmentWords(r)
		for i, s := range r.Segments {
			text := strings.TrimSpace(s.Text)
			if text == "" {
				continue
			}
			words += len(strings.Fields(text))
			segs = append(segs, callscribe.Segment{
				Text:         text,
				TimeStart:    s.Start,
				TimeEnd:      s.End,
				SpeakerID:    ch,
				SpeakerAlias: callscribe.SpeakerAlias(ch, t.agentChannel),
				Words:        fitWords(text, perSegment[i], s.Start, s.End),
			})
		}
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].TimeStart < segs[j].TimeStart })
	res := &callscribe.TranscriptionResult{DurationSeconds: duration, WordsCount: &words, Transcript: segs}
	if detected == "" {
		detected = primaryLanguage(hint)
	}
	if detected != "" {
		res.Language = &detected
	}
	return res
}

// segmentWords gives each of r's segments its words: the segment's own when
// the server nests them, otherwise the answer's top-level words, each to the
// non-empty segment that holds its midpoint (or, between segments, the
// nearest one).
func segmentWords(r *transcriptionResponse) [][]responseWord {
	out := make([][]responseWord, len(r.Segments))
	nested := false
	for i, s := range r.Segments {
		if len(s.Words) > 0 {
			out[i], nested = s.Words, true
		}
	}
	if nested {
		return out
	}
	for _, w := range r.Words {
		mid := (w.Start + w.End) / 2
		best, bestGap := -1, math.Inf(1)
		for i, s := range r.Segments {
			if strings.TrimSpace(s.Text) == "" {
				continue
			}
			gap := max(s.Start-mid, mid-s.End, 0)
			if gap < bestGap {
				best, bestGap = i, gap
			}
		}
		if best >= 0 {
			out[best] = append(out[best], w)
		}
	}
	return out
}

// fitWords makes a segment's words from the server's: one per word of its
// text, so when the server's words, or its tokens joined into words, do not
// line up one to one with the text (a count that differs) the segment
// carries none. A word keeps the server's
// spelling when it is the text's word up to punctuation and case, and takes
// the text's otherwise. Times are clamped inside the segment and never go
// back; confidence is null, since Whisper gives none.
func fitWords(text string, words []responseWord, start, end float64) []callscribe.Word {
	fields := strings.Fields(text)
	if len(words) != len(fields) {
		words = joinTokens(words)
	}
	if len(words) == 0 || len(words) != len(fields) {
		return nil
	}
	out := make([]callscribe.Word, len(words))
	prev := start
	for i, w := range words {
		t := strings.TrimSpace(w.Word)
		if !strings.EqualFold(trimPunct(t), trimPunct(fields[i])) || t == "" {
			t = fields[i]
		}
		ws := min(max(w.Start, prev), end)
		we := min(max(w.End, ws), end)
		out[i] = callscribe.Word{Text: t, Start: ws, End: we}
		prev = we
	}
	return out
}

// joinTokens turns Whisper tokens into words: whisper.cpp's server answers
// each segment's tokens as its "words" (" char", "ged", "."), and a token
// that does not start with a space continues the word before it. The joined
// word runs from its first token's start to its last one's end.
func joinTokens(tokens []responseWord) []responseWord {
	var out []responseWord
	for _, t := range tokens {
		if n := len(out); n > 0 && t.Word != "" && !unicode.IsSpace([]rune(t.Word)[0]) {
			out[n-1].Word += t.Word
			out[n-1].End = max(out[n-1].End, t.End)
			continue
		}
		out = append(out, t)
	}
	return out
}

// trimPunct strips the punctuation a transcript's text puts around a word.
func trimPunct(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
}

// primaryLanguage turns a BCP-47 hint ("en-US") into the ISO-639-1 code these
// APIs accept ("en").
func primaryLanguage(tag string) string {
	p, _, _ := strings.Cut(strings.ReplaceAll(strings.TrimSpace(tag), "_", "-"), "-")
	return strings.ToLower(p)
}

// whisperLanguages maps the language names OpenAI's verbose_json reports to
// ISO codes (whisper.cpp and faster-whisper report codes already).
var whisperLanguages = map[string]string{
	"english": "en", "german": "de", "french": "fr", "spanish": "es", "italian": "it",
	"portuguese": "pt", "dutch": "nl", "polish": "pl", "russian": "ru", "ukrainian": "uk",
	"turkish": "tr", "arabic": "ar", "hindi": "hi", "chinese": "zh", "japanese": "ja",
	"korean": "ko", "swedish": "sv", "danish": "da", "norwegian": "no", "finnish": "fi",
	"czech": "cs", "greek": "el", "hebrew": "he", "romanian": "ro", "hungarian": "hu",
	"vietnamese": "vi", "indonesian": "id", "thai": "th", "catalan": "ca",
}

func languageCode(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if code, ok := whisperLanguages[s]; ok {
		return code
	}
	return primaryLanguage(s)
}
