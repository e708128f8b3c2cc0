// Package whisperstandin is a local stand-in for the OpenAI-compatible
// speech-to-text servers teams plug in with TRANSCRIBER=openai: OpenAI itself,
// speaches (formerly faster-whisper-server) and whisper.cpp's whisper-server
// started with --inference-path /v1/audio/transcriptions. Tests only.
//
// It serves POST /v1/audio/transcriptions as those servers do: a multipart
// form with file, model, response_format, timestamp_granularities[] (segment,
// word), language and prompt; a bearer key; and a verbose_json answer (text,
// language, duration, segments[{id, seek, start, end, text, tokens, ...}],
// words[{word, start, end}]) shaped like the chosen Dialect's. What it answers
// is what it hears: the file must be a WAV, and the stand-in finds the tone-
// words of Vocabulary in it (fixtures come from ToneCall), so a test that
// checks the transcript checks what the service actually sent. Every request
// is recorded with the settings it carried. A wrong key is answered 401
// with OpenAI's error body, or as speaches answers it, 403 {"detail"}.
//
// The shapes follow the servers' own sources and documentation: OpenAI's
// verbose_json object (words at the top level, only with
// timestamp_granularities[]=word; segments left out when only words are
// asked for; language as a name, "english"), speaches' api_types.py (words
// both in each segment and at the top level, with probability; language as a
// code, "en") and whisper.cpp's examples/server/server.cpp (no key, model and
// timestamp_granularities ignored, each segment's "words" are its tokens, "
// char" and "ged", with probability and t_dtw; failures answered as HTTP 200
// {"error": "..."}).
package whisperstandin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Dialect is which server's answers the stand-in imitates.
type Dialect int

const (
	OpenAI Dialect = iota
	Speaches
	WhisperCpp
)

func (d Dialect) String() string {
	return [...]string{"openai", "speaches", "whisper.cpp"}[d]
}

// Path is where the servers answer (whisper.cpp: with --inference-path).
const Path = "/v1/audio/transcriptions"

// Request is one request the stand-in received and what it answered.
type Request struct {
	Authorization  string
	Model          string
	ResponseFormat string
	Granularities  []string // timestamp_granularities[] in the order sent
	Language       string
	Prompt         string
	Filename       string
	WAV            WAVInfo
	Status         int
	// Answer is the verbose_json answer of a successful request.
	Answer *Transcription
}

// Transcription is a verbose_json answer.
type Transcription struct {
	Task     string    `json:"task"`
	Language string    `json:"language"`
	Duration float64   `json:"duration"`
	Text     string    `json:"text"`
	Segments []Segment `json:"segments,omitempty"`
	Words    []Word    `json:"words,omitempty"`
}

// Segment is one verbose_json segment.
type Segment struct {
	ID               int     `json:"id"`
	Seek             int     `json:"seek"`
	Start            float64 `json:"start"`
	End              float64 `json:"end"`
	Text             string  `json:"text"`
	Tokens           []int   `json:"tokens"`
	Temperature      float64 `json:"temperature"`
	AvgLogprob       float64 `json:"avg_logprob"`
	CompressionRatio float64 `json:"compression_ratio"`
	NoSpeechProb     float64 `json:"no_speech_prob"`
	Words            []Word  `json:"words,omitempty"`
}

// Word is one timed word (whisper.cpp: one token).
type Word struct {
	Word        string   `json:"word"`
	Start       float64  `json:"start"`
	End         float64  `json:"end"`
	Probability *float64 `json:"probability,omitempty"`
	TDTW        *int     `json:"t_dtw,omitempty"`
}

// Server is a running stand-in.
type Server struct {
	// URL is the base URL to give the service (OPENAI_BASE_URL), without /v1.
	URL string
	srv *httptest.Server

	mu                  sync.Mutex
	dialect             Dialect
	apiKey              string
	ignoreGranularities bool
	delay               time.Duration
	requests            []Request
}

// Start starts a stand-in answering like dialect and requiring apiKey as a
// bearer token ("" for none, as whisper.cpp's server); it is closed when the
// test ends.
func Start(t testing.TB, dialect Dialect, apiKey string) *Server {
	s := &Server{dialect: dialect, apiKey: apiKey}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// SetAPIKey changes the key the stand-in accepts (a service holding the old
// one then has the wrong key).
func (s *Server) SetAPIKey(key string) { s.mu.Lock(); s.apiKey = key; s.mu.Unlock() }

// SetDialect changes which server the stand-in imitates.
func (s *Server) SetDialect(d Dialect) { s.mu.Lock(); s.dialect = d; s.mu.Unlock() }

// IgnoreGranularities makes the stand-in answer as a server that does not
// implement timestamp_granularities: segments, and no words anywhere.
func (s *Server) IgnoreGranularities(ignore bool) {
	s.mu.Lock()
	s.ignoreGranularities = ignore
	s.mu.Unlock()
}

// SetDelay makes the stand-in wait d before it answers, as a server busy
// with a long call does (a client that gives up ends the wait).
func (s *Server) SetDelay(d time.Duration) { s.mu.Lock(); s.delay = d; s.mu.Unlock() }

// Requests returns the requests received since the last Reset.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Reset forgets the requests received so far.
func (s *Server) Reset() { s.mu.Lock(); s.requests = nil; s.mu.Unlock() }

// Close stops the stand-in: connections to URL are refused from then on.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	dialect, key, ignore, delay := s.dialect, s.apiKey, s.ignoreGranularities, s.delay
	s.mu.Unlock()
	rec := Request{Authorization: r.Header.Get("Authorization")}
	status, body := s.answer(r, &rec, dialect, key, ignore)
	rec.Status = status
	// Recorded before the delay, so a client that gave up finds its
	// request already counted.
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	select {
	case <-time.After(delay):
	case <-r.Context().Done():
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// openAIError is OpenAI's error body.
func openAIError(message, typ, code string) any {
	var c any
	if code != "" {
		c = code
	}
	return map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": c}}
}

// failure answers as the dialect answers a bad request: whisper.cpp with
// HTTP 200 and {"error": message}, the others with 400 and OpenAI's body.
func failure(dialect Dialect, message string) (int, any) {
	if dialect == WhisperCpp {
		return http.StatusOK, map[string]string{"error": message}
	}
	return http.StatusBadRequest, openAIError(message, "invalid_request_error", "")
}

func (s *Server) answer(r *http.Request, rec *Request, dialect Dialect, key string, ignore bool) (int, any) {
	if r.Method != http.MethodPost || r.URL.Path != Path {
		return http.StatusNotFound, openAIError("Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", "")
	}
	if key != "" && rec.Authorization != "Bearer "+key {
		if dialect == Speaches {
			// FastAPI's shape, as speaches' tests/auth_test.py expects it.
			return http.StatusForbidden, map[string]string{"detail": "Invalid API key. The provided API key is incorrect."}
		}
		return http.StatusUnauthorized, openAIError("Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
	}
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		return failure(dialect, "could not parse the multipart form: "+err.Error())
	}
	form := r.MultipartForm.Value
	first := func(k string) string {
		if v := form[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	rec.Model, rec.ResponseFormat = first("model"), first("response_format")
	rec.Language, rec.Prompt = first("language"), first("prompt")
	rec.Granularities = form["timestamp_granularities[]"]
	files := r.MultipartForm.File["file"]
	if len(files) != 1 {
		return failure(dialect, "no 'file' field in the request")
	}
	rec.Filename = files[0].Filename
	f, err := files[0].Open()
	if err != nil {
		return failure(dialect, err.Error())
	}
	audio, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return failure(dialect, err.Error())
	}
	if dialect != WhisperCpp {
		if rec.Model == "" {
			return failure(dialect, "you must provide a model parameter")
		}
		if slices.Contains(rec.Granularities, "word") && rec.ResponseFormat != "verbose_json" {
			return failure(dialect, "timestamp_granularities[]=word requires response_format=verbose_json")
		}
	}
	info, pcm, err := parseWAV(audio)
	rec.WAV = info
	if err != nil {
		return failure(dialect, "failed to read audio data: "+err.Error())
	}
	if pcm == nil {
		return failure(dialect, fmt.Sprintf("unsupported WAV encoding: format %d, %d bits", info.Format, info.BitsPerSample))
	}
	if rec.ResponseFormat != "verbose_json" {
		// json (the default): text only, which the service cannot use.
		return http.StatusOK, map[string]string{"text": joinText(hear(pcm, info.SampleRate))}
	}
	tr := transcription(dialect, hear(pcm, info.SampleRate), info.Seconds, rec.Language, rec.Granularities, ignore)
	rec.Answer = &tr
	return http.StatusOK, tr
}

func sentence(words []heardWord) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.word
	}
	text := strings.Join(parts, " ") + "."
	return strings.ToUpper(text[:1]) + text[1:]
}

func joinText(segs [][]heardWord) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		parts[i] = sentence(s)
	}
	return strings.Join(parts, " ")
}

// transcription builds the dialect's verbose_json answer for what was heard.
func transcription(dialect Dialect, segs [][]heardWord, seconds float64, language string, granularities []string, ignore bool) Transcription {
	wantWords := slices.Contains(granularities, "word")
	wantSegments := len(granularities) == 0 || slices.Contains(granularities, "segment")
	switch {
	case ignore:
		wantWords, wantSegments = false, true
	case dialect == WhisperCpp:
		// whisper.cpp reads no timestamp_granularities: segments always, each
		// with its tokens as "words".
		wantWords, wantSegments = true, true
	case dialect == Speaches:
		// speaches always answers segments.
		wantSegments = true
	}
	tr := Transcription{Task: "transcribe", Duration: seconds}
	switch {
	case dialect == Speaches && language != "":
		tr.Language = language
	case dialect == Speaches:
		tr.Language = "en"
	default:
		// OpenAI and whisper.cpp name the language.
		tr.Language = "english"
	}
	prob := 0.9
	texts := make([]string, len(segs))
	for i, hs := range segs {
		text := " " + sentence(hs)
		texts[i] = text
		seg := Segment{ID: i, Start: hs[0].start, End: hs[len(hs)-1].end, Text: text, Tokens: []int{}, AvgLogprob: -0.2, CompressionRatio: 1.1}
		var words []Word
		for j, w := range hs {
			spelled := w.word
			if j == 0 {
				spelled = strings.ToUpper(spelled[:1]) + spelled[1:]
			}
			if j == len(hs)-1 {
				spelled += "."
			}
			switch dialect {
			case OpenAI:
				// OpenAI's words carry neither the space nor the punctuation.
				words = append(words, Word{Word: strings.TrimSuffix(spelled, "."), Start: w.start, End: w.end})
			case Speaches:
				words = append(words, Word{Word: " " + spelled, Start: w.start, End: w.end, Probability: &prob})
			case WhisperCpp:
				words = append(words, tokens(" "+spelled, w.start, w.end, &prob)...)
			}
		}
		for k := range words {
			seg.Tokens = append(seg.Tokens, 1000+k)
		}
		if wantWords {
			switch dialect {
			case OpenAI:
				tr.Words = append(tr.Words, words...)
			case Speaches:
				seg.Words = words
				tr.Words = append(tr.Words, words...)
			case WhisperCpp:
				seg.Words = words
			}
		}
		if wantSegments {
			tr.Segments = append(tr.Segments, seg)
		}
	}
	if dialect == WhisperCpp {
		tr.Text = strings.Join(texts, "\n")
	} else {
		tr.Text = strings.TrimSpace(strings.Join(texts, ""))
	}
	if tr.Segments == nil && wantSegments {
		tr.Segments = []Segment{}
	}
	return tr
}

// tokens splits a word as a Whisper tokenizer would for the purpose: words
// of more than five letters into a first token that keeps the leading space
// and a second that has none, and a final full stop into a token of its own;
// the word's time is shared between its tokens by length.
func tokens(word string, start, end float64, prob *float64) []Word {
	var parts []string
	core, stop := strings.CutSuffix(word, ".")
	if len(strings.TrimSpace(core)) > 5 {
		parts = []string{core[:4], core[4:]}
	} else {
		parts = []string{core}
	}
	out := make([]Word, 0, len(parts)+1)
	t := start
	for _, p := range parts {
		d := (end - start) * float64(len(strings.TrimSpace(p))) / float64(len(strings.TrimSpace(core)))
		dtw := int(t * 100)
		out = append(out, Word{Word: p, Start: centi(t), End: centi(t + d), Probability: prob, TDTW: &dtw})
		t += d
	}
	if stop {
		dtw := int(end * 100)
		out = append(out, Word{Word: ".", Start: centi(end), End: centi(end), Probability: prob, TDTW: &dtw})
	}
	return out
}
