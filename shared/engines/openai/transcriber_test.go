package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// fakeWhisper speaks the /v1/audio/transcriptions protocol. It decodes the
// uploaded WAV and answers from its first sample, so each channel can be given
// its own transcript.
type fakeWhisper struct {
	t     *testing.T
	mu    sync.Mutex
	forms []map[string]string
	// values are each request's form fields with all their values.
	values  []map[string][]string
	answers map[int16]string // first sample -> verbose_json body
	status  int
	raw     string
	delay   time.Duration
}

func (f *fakeWhisper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
		http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	form := map[string]string{}
	for k, v := range r.MultipartForm.Value {
		form[k] = v[0]
	}
	file, hdr, err := r.FormFile("file")
	if err != nil {
		http.Error(w, "no file", http.StatusBadRequest)
		return
	}
	data, _ := io.ReadAll(file)
	form["filename"] = hdr.Filename
	f.mu.Lock()
	f.forms = append(f.forms, form)
	f.values = append(f.values, r.MultipartForm.Value)
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	if f.status != 0 {
		w.WriteHeader(f.status)
		io.WriteString(w, f.raw)
		return
	}
	if f.raw != "" {
		io.WriteString(w, f.raw)
		return
	}
	a, err := decode.Decode(data, "")
	if err != nil || len(a.Channels) != 1 {
		http.Error(w, "upload is not mono WAV", http.StatusBadRequest)
		return
	}
	io.WriteString(w, f.answers[a.Channels[0][0]])
}

// stereo returns a WAV whose channels start with the given marker samples.
func stereo(t *testing.T, left, right int16) []byte {
	n := 8000
	l, r := make([]int16, n), make([]int16, n)
	for i := range l {
		l[i], r[i] = left, right
	}
	return decode.EncodeWAV(8000, l, r)
}

func verbose(lang string, segs ...string) string {
	type seg struct {
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Text  string  `json:"text"`
	}
	var out []seg
	var all []string
	for i := 0; i+2 < len(segs); i += 3 {
		var s seg
		fmt.Sscan(segs[i], &s.Start)
		fmt.Sscan(segs[i+1], &s.End)
		s.Text = segs[i+2]
		out = append(out, s)
		all = append(all, s.Text)
	}
	b, _ := json.Marshal(map[string]any{"task": "transcribe", "language": lang, "duration": 1.0, "text": strings.Join(all, ""), "segments": out})
	return string(b)
}

func newFake(t *testing.T, f *fakeWhisper, timeout time.Duration, base string) (*Transcriber, *fakeWhisper) {
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return NewTranscriber(NewClient(srv.URL+base, "sk-test", timeout), "whisper-1", 0), f
}

func TestTranscriberStereo(t *testing.T) {
	tr, fake := newFake(t, &fakeWhisper{answers: map[int16]string{
		1000: verbose("english", "0.5", "2.0", " Thank you for calling.", "4.0", "5.5", " Anything else?"),
		2000: verbose("english", "2.2", "3.8", " My bill is wrong.", "6.0", "6.4", "   "),
	}}, 5*time.Second, "/v1")
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: stereo(t, 1000, 2000), Format: callscribe.FormatWAV, Language: "en-US"})
	if err != nil {
		t.Fatal(err)
	}
	want := []callscribe.Segment{
		{Text: "Thank you for calling.", TimeStart: 0.5, TimeEnd: 2, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "My bill is wrong.", TimeStart: 2.2, TimeEnd: 3.8, SpeakerID: 1, SpeakerAlias: "User"},
		{Text: "Anything else?", TimeStart: 4, TimeEnd: 5.5, SpeakerID: 0, SpeakerAlias: "Agent"},
	}
	if fmt.Sprint(res.Transcript) != fmt.Sprint(want) {
		t.Errorf("transcript\n got %+v\nwant %+v", res.Transcript, want)
	}
	for _, s := range res.Transcript {
		if s.Words != nil || s.Confidence != nil {
			t.Errorf("segment %q: words %v confidence %v from a server that gave no words", s.Text, s.Words, s.Confidence)
		}
	}
	if *res.WordsCount != 10 || *res.Language != "en" || res.DurationSeconds != 1 {
		t.Errorf("words %d language %q duration %v", *res.WordsCount, *res.Language, res.DurationSeconds)
	}
	if len(fake.forms) != 2 {
		t.Fatalf("%d requests, want one per channel", len(fake.forms))
	}
	for _, f := range fake.forms {
		if f["model"] != "whisper-1" || f["response_format"] != "verbose_json" || f["timestamp_granularities[]"] != "segment" || f["language"] != "en" {
			t.Errorf("form fields %v", f)
		}
	}
}

// A server that honours timestamp_granularities[]=word answers with the
// words at the top level (as OpenAI does); each goes to the segment that
// holds it, timed inside it. A server that ignores it answers with segments
// alone, which then carry no words (TestTranscriberStereo).
func TestTranscriberWordTimings(t *testing.T) {
	type w = responseWord
	answer := func(segs []map[string]any, words []w) string {
		b, _ := json.Marshal(map[string]any{"task": "transcribe", "language": "english", "duration": 8.0, "text": "", "segments": segs, "words": words})
		return string(b)
	}
	tr, fake := newFake(t, &fakeWhisper{answers: map[int16]string{
		// The Agent's words: "calling" ends just past its segment and is
		// clamped; "Anything" starts between the segments, nearer the second.
		1000: answer([]map[string]any{
			{"start": 0.5, "end": 2.0, "text": " Thank you for calling."},
			{"start": 4.0, "end": 5.5, "text": " Anything else?"},
		}, []w{{"Thank", 0.5, 0.8}, {"you", 0.8, 1.0}, {"for", 1.0, 1.3}, {"calling", 1.3, 2.1}, {"Anything", 3.9, 4.6}, {"else", 4.6, 5.2}}),
		// The User's: the server's words do not line up with the text (one
		// word short), so that segment carries none.
		2000: answer([]map[string]any{
			{"start": 2.2, "end": 3.8, "text": " My bill is wrong."},
		}, []w{{"My", 2.2, 2.5}, {"bill", 2.5, 2.9}, {"wrong", 3.2, 3.8}}),
	}}, 5*time.Second, "/v1")
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: stereo(t, 1000, 2000), Format: callscribe.FormatWAV, Language: "en-US"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transcript) != 3 {
		t.Fatalf("transcript %+v", res.Transcript)
	}
	words := func(ws []callscribe.Word) string {
		var out []string
		for _, w := range ws {
			if w.Confidence != nil {
				t.Errorf("word %q has confidence %v, want null", w.Text, *w.Confidence)
			}
			out = append(out, fmt.Sprintf("%s %.1f-%.1f", w.Text, w.Start, w.End))
		}
		return strings.Join(out, ", ")
	}
	for i, want := range []string{
		"Thank 0.5-0.8, you 0.8-1.0, for 1.0-1.3, calling 1.3-2.0",
		"",
		"Anything 4.0-4.6, else 4.6-5.2",
	} {
		s := res.Transcript[i]
		if got := words(s.Words); got != want {
			t.Errorf("segment %d %q words %q, want %q", i, s.Text, got, want)
		}
		if s.Confidence != nil {
			t.Errorf("segment %d confidence %v, want none", i, *s.Confidence)
		}
	}
	for _, v := range fake.values {
		if g := v["timestamp_granularities[]"]; len(g) != 2 || g[0] != "segment" || g[1] != "word" {
			t.Errorf("timestamp_granularities[] %q, want segment and word", g)
		}
	}
}

// Servers that nest each segment's words in the segment (faster-whisper
// style) are read as they are, without regrouping by time.
func TestTranscriberNestedWordTimings(t *testing.T) {
	b, _ := json.Marshal(map[string]any{"language": "en", "duration": 3.0, "text": "Hello there.", "segments": []map[string]any{
		{"start": 0.2, "end": 1.4, "text": "Hello there.", "words": []map[string]any{
			{"word": " Hello", "start": 0.2, "end": 0.7, "probability": 0.9}, {"word": " there.", "start": 0.7, "end": 1.4, "probability": 0.8},
		}},
	}})
	tr, _ := newFake(t, &fakeWhisper{answers: map[int16]string{1000: string(b)}}, 5*time.Second, "/v1")
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: stereo(t, 1000, 0), Format: callscribe.FormatWAV})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transcript) != 1 {
		t.Fatalf("transcript %+v", res.Transcript)
	}
	ws := res.Transcript[0].Words
	if len(ws) != 2 || ws[0].Text != "Hello" || ws[1].Text != "there." || ws[0].Start != 0.2 || ws[1].End != 1.4 || ws[0].Confidence != nil {
		t.Errorf("words %+v", ws)
	}
}

// Keyterms go to the model as its prompt on every channel, and the result
// says so; without keyterms there is neither a prompt nor meta_data.
func TestTranscriberKeytermsPrompt(t *testing.T) {
	tr, fake := newFake(t, &fakeWhisper{answers: map[int16]string{
		1000: verbose("english", "0.5", "2.0", " Northwind Energy, hello."),
		2000: verbose("english", "2.2", "3.8", " My smart meter."),
	}}, 5*time.Second, "/v1")
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: stereo(t, 1000, 2000), Format: callscribe.FormatWAV, Keyterms: []string{"Northwind Energy", "smart meter"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fake.forms {
		if f["prompt"] != "Terms: Northwind Energy, smart meter." {
			t.Errorf("prompt %q", f["prompt"])
		}
	}
	if res.MetaData == nil || res.MetaData.Keyterms == nil || res.MetaData.Keyterms.Method != callscribe.KeytermsPrompt ||
		fmt.Sprint(res.MetaData.Keyterms.Applied) != "[Northwind Energy smart meter]" || len(res.MetaData.Keyterms.UnknownWords) != 0 {
		t.Errorf("meta_data %+v", res.MetaData)
	}
	fake.forms = nil
	res, err = tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: stereo(t, 1000, 2000), Format: callscribe.FormatWAV})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fake.forms[0]["prompt"]; ok || res.MetaData != nil {
		t.Errorf("without keyterms: prompt sent %v, meta_data %+v", ok, res.MetaData)
	}
}

func TestTranscriberAgentChannelAndSilence(t *testing.T) {
	tr, fake := newFake(t, &fakeWhisper{answers: map[int16]string{
		3000: verbose("de", "0.1", "0.9", "Hallo"),
	}}, 5*time.Second, "")
	tr.agentChannel = 1
	// Channel 1 is digital silence: it must not be sent (Whisper invents words).
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: stereo(t, 3000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.forms) != 1 || fake.forms[0]["filename"] != "channel0.wav" {
		t.Fatalf("requests %v", fake.forms)
	}
	if _, ok := fake.forms[0]["language"]; ok {
		t.Error("language sent without a hint")
	}
	if len(res.Transcript) != 1 || res.Transcript[0].SpeakerAlias != "User" || *res.Language != "de" {
		t.Errorf("got %+v language %v", res.Transcript, *res.Language)
	}
}

func TestTranscriberFailures(t *testing.T) {
	for name, tc := range map[string]struct {
		fake     *fakeWhisper
		key      string
		timeout  time.Duration
		wantCode string
	}{
		"401 bad key":    {fake: &fakeWhisper{}, key: "wrong", wantCode: "invalid_api_key"},
		"400 openai":     {fake: &fakeWhisper{status: 400, raw: `{"error":{"message":"Invalid file format.","type":"invalid_request_error","code":null}}`}, wantCode: "invalid_request_error"},
		"500 plain":      {fake: &fakeWhisper{status: 500, raw: "upstream exploded"}, wantCode: "http_500"},
		"503 flat error": {fake: &fakeWhisper{status: 503, raw: `{"error":"model is loading"}`}, wantCode: "http_503"},
		"malformed json": {fake: &fakeWhisper{raw: `{"segments": [`}, wantCode: "invalid_response"},
		"text only":      {fake: &fakeWhisper{raw: `{"text":"hello"}`}, wantCode: "invalid_response"},
		"timeout":        {fake: &fakeWhisper{delay: 2 * time.Second}, timeout: 100 * time.Millisecond, wantCode: "provider_timeout"},
	} {
		t.Run(name, func(t *testing.T) {
			timeout := cmpOrDuration(tc.timeout, 5*time.Second)
			tr, _ := newFake(t, tc.fake, timeout, "")
			if tc.key != "" {
				tr.client.APIKey = tc.key
			}
			_, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: stereo(t, 1000, 2000)})
			var je *callscribe.JobError
			if !errors.As(err, &je) {
				t.Fatalf("err = %v, want *JobError", err)
			}
			if je.Code != callscribe.JobErrProviderError || je.ProviderError == nil || je.ProviderError.Code != tc.wantCode {
				t.Fatalf("got %+v / %+v, want provider_error %s", je, je.ProviderError, tc.wantCode)
			}
			if je.ProviderError.Message == "" {
				t.Error("empty provider message")
			}
		})
	}
}

func cmpOrDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Cancellation by our side is not the provider's fault: the error must not be a
// JobError, so the job is retried rather than failed.
func TestTranscriberCancelled(t *testing.T) {
	tr, _ := newFake(t, &fakeWhisper{delay: 2 * time.Second}, 5*time.Second, "")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := tr.Transcribe(ctx, callscribe.TranscriptionRequest{Audio: stereo(t, 1000, 2000)})
	var je *callscribe.JobError
	if err == nil || errors.As(err, &je) {
		t.Fatalf("err = %v, want a retryable error", err)
	}
}

func TestTranscriberBadAudio(t *testing.T) {
	tr, fake := newFake(t, &fakeWhisper{}, 5*time.Second, "")
	for _, audio := range [][]byte{[]byte("RIFF\x04\x00\x00\x00WAVEjunk"), []byte("not audio")} {
		_, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio})
		var je *callscribe.JobError
		if !errors.As(err, &je) || je.Code != callscribe.JobErrBadAudio {
			t.Fatalf("err = %v, want bad_audio", err)
		}
	}
	if len(fake.forms) != 0 {
		t.Error("undecodable audio was sent to the provider")
	}
}
