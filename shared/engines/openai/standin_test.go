package openai

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/whisperstandin"
)

// standInCall is a stereo call with a word of more than one Whisper token
// ("calling", "charged") in each channel's segment.
var standInCall = []whisperstandin.Line{
	{Channel: 0, Start: 0.2, Words: []string{"thanks", "for", "calling"}},
	{Channel: 1, Start: 1.6, Words: []string{"my", "bill", "was", "charged", "twice"}},
}

// Each server's answer shape gives the same transcript, words included:
// OpenAI's top-level words, speaches' nested ones and whisper.cpp's tokens.
func TestTranscriberServerDialects(t *testing.T) {
	audio := whisperstandin.ToneCall(8000, 2, 4, standInCall)
	for _, d := range []whisperstandin.Dialect{whisperstandin.OpenAI, whisperstandin.Speaches, whisperstandin.WhisperCpp} {
		t.Run(d.String(), func(t *testing.T) {
			s := whisperstandin.Start(t, d, "")
			tr := NewTranscriber(NewClient(s.URL, "", 5*time.Second), "whisper-1", 0)
			res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio, Format: "wav"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Transcript) != 2 {
				t.Fatalf("transcript %+v", res.Transcript)
			}
			for i, l := range standInCall {
				seg := res.Transcript[i]
				want := strings.Join(l.Words, " ")
				if got := strings.ToLower(strings.TrimSuffix(seg.Text, ".")); got != want || seg.SpeakerID != l.Channel {
					t.Errorf("segment %d: speaker %d %q, want %d %q", i, seg.SpeakerID, seg.Text, l.Channel, want)
				}
				if len(seg.Words) != len(l.Words) {
					t.Errorf("segment %d: %d words %+v, want %d", i, len(seg.Words), seg.Words, len(l.Words))
					continue
				}
				for j, w := range seg.Words {
					wt := l.WordTimes()[j]
					if !strings.EqualFold(trimPunct(w.Text), l.Words[j]) || w.Start != wt[0] || w.End != wt[1] {
						t.Errorf("segment %d word %d: %+v, want %s %v", i, j, w, l.Words[j], wt)
					}
				}
			}
			if res.Language == nil || *res.Language != "en" {
				t.Errorf("language %v, want en", res.Language)
			}
		})
	}
}

// whisper.cpp's server answers a file it cannot read with HTTP 200 and
// {"error": "..."}: that fails the job with the server's reason instead of
// succeeding with an empty transcript.
func TestTranscriberErrorBodyWithStatus200(t *testing.T) {
	s := whisperstandin.Start(t, whisperstandin.WhisperCpp, "")
	tr := NewTranscriber(NewClient(s.URL, "", 5*time.Second), "whisper-1", 0)
	// Transcribe always sends a WAV the stand-in reads, so send is given
	// bytes it cannot read (as a build without cgo sends an MP3 whole).
	_, err := tr.send(context.Background(), []byte("not audio"), "channel0.wav", "", nil)
	var je *callscribe.JobError
	if !errors.As(err, &je) || je.Code != callscribe.JobErrProviderError || je.ProviderError == nil ||
		!strings.Contains(je.ProviderError.Message, "failed to read audio data") {
		t.Fatalf("error %v, want provider_error carrying the server's message", err)
	}
}

// A wrong key is reported with the server's own words: OpenAI's error
// message and code, speaches' FastAPI detail.
func TestTranscriberWrongKeyMessages(t *testing.T) {
	audio := whisperstandin.ToneCall(8000, 1, 1, standInCall[:1])
	for _, tc := range []struct {
		dialect whisperstandin.Dialect
		code    string
		message string
	}{
		{whisperstandin.OpenAI, "invalid_api_key", "provider answered HTTP 401: Incorrect API key provided."},
		{whisperstandin.Speaches, "http_403", "provider answered HTTP 403: Invalid API key. The provided API key is incorrect."},
	} {
		s := whisperstandin.Start(t, tc.dialect, "sk-right")
		tr := NewTranscriber(NewClient(s.URL, "sk-wrong", 5*time.Second), "whisper-1", 0)
		_, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio, Format: "wav"})
		var je *callscribe.JobError
		if !errors.As(err, &je) || je.ProviderError == nil || je.ProviderError.Code != tc.code || !strings.HasPrefix(je.ProviderError.Message, tc.message) {
			t.Errorf("%s: error %#v, want provider_error %s %q", tc.dialect, err, tc.code, tc.message)
		}
	}
}
