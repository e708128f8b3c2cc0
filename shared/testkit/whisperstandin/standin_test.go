package whisperstandin

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

var testLines = []Line{
	{Channel: 0, Start: 0.2, Words: []string{"hello", "thanks", "for", "calling"}},
	{Channel: 0, Start: 2.4, Words: []string{"refund", "issued"}},
}

// The stand-in hears in a tone fixture exactly the words and times written
// into it, at the rates callers send.
func TestHearToneCall(t *testing.T) {
	for _, rate := range []int{8000, 16000, 44100} {
		wav := ToneCall(rate, 1, 4, testLines)
		info, pcm, err := parseWAV(wav)
		if err != nil || info.SampleRate != rate || info.Channels != 1 || info.BitsPerSample != 16 {
			t.Fatalf("rate %d: parseWAV %+v, %v", rate, info, err)
		}
		segs := hear(pcm, rate)
		if len(segs) != len(testLines) {
			t.Fatalf("rate %d: heard %d segments %v, want %d", rate, len(segs), segs, len(testLines))
		}
		for i, l := range testLines {
			if len(segs[i]) != len(l.Words) {
				t.Fatalf("rate %d: segment %d heard %v, want %v", rate, i, segs[i], l.Words)
			}
			for j, w := range segs[i] {
				want := l.WordTimes()[j]
				// 44.1 kHz frames are 882 samples, so edges fall within a frame.
				tol := 0.005
				if rate == 44100 {
					tol = 0.021
				}
				if w.word != l.Words[j] || abs(w.start-want[0]) > tol || abs(w.end-want[1]) > tol {
					t.Errorf("rate %d: segment %d word %d heard %+v, want %s at %v", rate, i, j, w, l.Words[j], want)
				}
			}
		}
	}
}

// Silence and noise-free gaps make no words; the other channel is not heard.
func TestHearOnlyTheChannelSent(t *testing.T) {
	wav := ToneCall(8000, 2, 3, []Line{{Channel: 1, Start: 0.4, Words: []string{"bill"}}})
	a, err := decode.DecodeWAV(wav)
	if err != nil {
		t.Fatal(err)
	}
	if segs := hear(a.Channels[0], 8000); len(segs) != 0 {
		t.Errorf("silent channel: heard %v", segs)
	}
	if segs := hear(a.Channels[1], 8000); len(segs) != 1 || segs[0][0].word != "bill" {
		t.Errorf("channel 1: heard %v", segs)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func post(t *testing.T, s *Server, key string, fields [][2]string, audio []byte) (*http.Response, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	fw, _ := mw.CreateFormFile("file", "audio.wav")
	_, _ = fw.Write(audio)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, s.URL+Path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp, out
}

var verbose = [][2]string{{"model", "whisper-1"}, {"response_format", "verbose_json"}, {"timestamp_granularities[]", "segment"}, {"timestamp_granularities[]", "word"}}

// Where each dialect puts the words, and how it names the language.
func TestDialectShapes(t *testing.T) {
	wav := ToneCall(8000, 1, 4, testLines)
	for _, tc := range []struct {
		dialect             Dialect
		language            string
		topWords, segWords  int // of the first segment / the answer
		firstWord, lastWord string
	}{
		{OpenAI, "english", 6, 0, "Hello", "issued"},
		{Speaches, "en", 6, 4, " Hello", " issued."},
		// " Hello", " than", "ks", " for", " cal", "ling", "." in the first segment.
		{WhisperCpp, "english", 0, 7, " Hello", "."},
	} {
		t.Run(tc.dialect.String(), func(t *testing.T) {
			s := Start(t, tc.dialect, "")
			resp, out := post(t, s, "", verbose, wav)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %v", resp.StatusCode, out)
			}
			if out["language"] != tc.language {
				t.Errorf("language %v, want %s", out["language"], tc.language)
			}
			segs, _ := out["segments"].([]any)
			if len(segs) != 2 {
				t.Fatalf("segments %v", out["segments"])
			}
			seg0 := segs[0].(map[string]any)
			if seg0["text"] != " Hello thanks for calling." || seg0["start"] != 0.2 || seg0["end"] != 1.7 {
				t.Errorf("segment 0 %v", seg0)
			}
			top, _ := out["words"].([]any)
			nested, _ := seg0["words"].([]any)
			if len(top) != tc.topWords || len(nested) != tc.segWords {
				t.Fatalf("%d top-level words, %d in segment 0; want %d, %d", len(top), len(nested), tc.topWords, tc.segWords)
			}
			all := append(nested, top...)
			if all[0].(map[string]any)["word"] != tc.firstWord {
				t.Errorf("first word %v, want %q", all[0], tc.firstWord)
			}
			last := top
			if len(last) == 0 {
				last = nested
			}
			if w := last[len(last)-1].(map[string]any)["word"]; w != tc.lastWord {
				t.Errorf("last word %v, want %q", w, tc.lastWord)
			}
			reqs := s.Requests()
			if len(reqs) != 1 || reqs[0].Model != "whisper-1" || strings.Join(reqs[0].Granularities, ",") != "segment,word" || reqs[0].WAV.SampleRate != 8000 {
				t.Errorf("recorded %+v", reqs)
			}
		})
	}
}

// OpenAI leaves the segments out when only words are asked for, and the
// words out unless they are; a server that ignores the granularities
// answers segments only.
func TestGranularities(t *testing.T) {
	wav := ToneCall(8000, 1, 4, testLines)
	s := Start(t, OpenAI, "")
	_, out := post(t, s, "", [][2]string{{"model", "whisper-1"}, {"response_format", "verbose_json"}, {"timestamp_granularities[]", "word"}}, wav)
	if _, ok := out["segments"]; ok || len(out["words"].([]any)) != 6 {
		t.Errorf("words only: %v", out)
	}
	_, out = post(t, s, "", [][2]string{{"model", "whisper-1"}, {"response_format", "verbose_json"}}, wav)
	if _, ok := out["words"]; ok || len(out["segments"].([]any)) != 2 {
		t.Errorf("no granularity: %v", out)
	}
	s.IgnoreGranularities(true)
	_, out = post(t, s, "", verbose, wav)
	if _, ok := out["words"]; ok || len(out["segments"].([]any)) != 2 {
		t.Errorf("ignored granularities: %v", out)
	}
	resp, out := post(t, s, "", [][2]string{{"model", "whisper-1"}, {"timestamp_granularities[]", "word"}}, wav)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("word granularity with json: %d %v", resp.StatusCode, out)
	}
}

// A wrong key is 401 with OpenAI's error body, 403 with speaches'
// {"detail"}; whisper.cpp answers a file
// it cannot read with 200 and {"error"}.
func TestFailures(t *testing.T) {
	s := Start(t, OpenAI, "sk-right")
	resp, out := post(t, s, "sk-wrong", verbose, ToneCall(8000, 1, 1, nil))
	e, _ := out["error"].(map[string]any)
	if resp.StatusCode != http.StatusUnauthorized || e["code"] != "invalid_api_key" {
		t.Errorf("wrong key: %d %v", resp.StatusCode, out)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Authorization != "Bearer sk-wrong" || r[0].Status != 401 {
		t.Errorf("recorded %+v", r)
	}
	sp := Start(t, Speaches, "sk-right")
	resp, out = post(t, sp, "sk-wrong", verbose, ToneCall(8000, 1, 1, nil))
	if resp.StatusCode != http.StatusForbidden || out["detail"] != "Invalid API key. The provided API key is incorrect." {
		t.Errorf("speaches, wrong key: %d %v", resp.StatusCode, out)
	}
	w := Start(t, WhisperCpp, "")
	resp, out = post(t, w, "", verbose, []byte("ID3 not a wav"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(out["error"].(string), "failed to read audio data") {
		t.Errorf("whisper.cpp, bad file: %d %v", resp.StatusCode, out)
	}
}
