//go:build cgo

package sphinx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// firstPassSearches reads which quick search each channel's first pass ran
// on, from speaker adaptation's debug lines.
func firstPassSearches(t *testing.T, logs *bytes.Buffer) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, l := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(l, `"msg":"sphinx speaker adaptation`) {
			continue
		}
		var line struct {
			Channel int    `json:"channel"`
			Search  string `json:"first_pass_search"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		out[line.Channel] = line.Search
	}
	return out
}

// In a call whose one leg is clean and whose other carries the same talker
// under noise 35 dB down (a line's floor), only the noisy leg's first pass
// runs on the capped search, and it is still recognised; without the setting
// (the default) both run on the full quick search.
func TestLineChannelsTakeTheCappedFirstPass(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel()
	const rate = 8000
	clean, noisy := cleanAndNoisyTrack(t, rate, 35, 3)
	audio := wavOf(t, rate, clean, noisy)
	transcribe := func(cfg Config) (map[int]string, map[int]string) {
		t.Helper()
		cfg.SpeakerAdaptation = true
		res, logs := transcribeWithLogs(t, cfg, audio)
		return firstPassSearches(t, logs), speakerTexts(res)
	}
	searches, texts := transcribe(Config{LineQuickSearchMaxHMMs: 2000})
	if searches[0] != quickSearch || searches[1] != lineQuickSearch {
		t.Errorf("first passes %v, want the clean leg on %q and the noisy one on %q", searches, quickSearch, lineQuickSearch)
	}
	for ch, text := range texts {
		if w := wer(shortLine, text); w > 0.3 {
			t.Errorf("channel %d: %q (WER %.0f%%)", ch, text, 100*w)
		}
	}
	if searches, _ := transcribe(Config{}); searches[0] != quickSearch || searches[1] != quickSearch {
		t.Errorf("by default, first passes %v, want both on %q", searches, quickSearch)
	}
}
