package testengine

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// wav is an 8 kHz WAV of the given channels, each a list of [start, end)
// seconds of a 500 Hz tone over total seconds of otherwise silence.
func wav(total float64, channels ...[][2]float64) []byte {
	pcm := make([][]int16, len(channels))
	for ch, spans := range channels {
		pcm[ch] = make([]int16, int(total*8000))
		for _, s := range spans {
			for f := int(s[0] * 8000); f < int(s[1]*8000); f++ {
				// A tone that never dips below the loudness threshold between
				// its first and last sample: a square wave.
				pcm[ch][f] = 4000
				if f%16 >= 8 {
					pcm[ch][f] = -4000
				}
			}
		}
	}
	return decode.EncodeWAV(8000, pcm...)
}

type span struct {
	speaker    int
	start, end float64
}

func spans(t *testing.T, audio []byte) []span {
	t.Helper()
	res, err := (&Engine{}).Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	var out []span
	for _, s := range res.Transcript {
		out = append(out, span{s.SpeakerID, math.Round(s.TimeStart*1000) / 1000, math.Round(s.TimeEnd*1000) / 1000})
		if s.Text != Lines[s.SpeakerID] || len(s.Words) == 0 || s.Words[0].Start != s.TimeStart || s.Words[len(s.Words)-1].End != s.TimeEnd {
			t.Errorf("segment %+v: want the channel's line with words spread over it", s)
		}
	}
	return out
}

func TestTranscribeBursts(t *testing.T) {
	// Bursts of sound are segments at their times, in time order; a 0.3 s
	// pause joins two stretches into one burst, 0.5 s separates them.
	got := spans(t, wav(6, [][2]float64{{0.5, 1.5}, {1.8, 2.5}, {4, 5}}, [][2]float64{{2, 3}}))
	want := []span{{0, 0.5, 2.5}, {1, 2, 3}, {0, 4, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bursts: got %v, want %v", got, want)
	}
	// A tone throughout has no bursts: the fixed layout, halves of the audio.
	if got, want := spans(t, wav(4, [][2]float64{{0, 4}}, [][2]float64{{0, 4}})), []span{{0, 0, 2}, {1, 2, 4}}; !reflect.DeepEqual(got, want) {
		t.Errorf("tone throughout: got %v, want %v", got, want)
	}
	// Quiet for less than the gap at either end is not bursts either.
	if got, want := spans(t, wav(2, [][2]float64{{0.2, 1.8}})), []span{{0, 0, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("short quiet ends: got %v, want %v", got, want)
	}
	// Silence is no speech.
	if got := spans(t, wav(2, nil, nil)); len(got) != 0 {
		t.Errorf("silence: got %v", got)
	}
}
