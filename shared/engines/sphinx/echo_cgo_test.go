//go:build cgo

package sphinx

import (
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// leakInto returns near with far laid into it lossDB down and delay samples
// late, as a hybrid or a leaky handset lays the other talker into a leg.
func leakInto(near, far []int16, lossDB float64, delay int) []int16 {
	g := math.Pow(10, -lossDB/20)
	out := make([]int16, len(near))
	for i, v := range near {
		x := float64(v)
		if j := i - delay; j >= 0 && j < len(far) {
			x += g * float64(far[j])
		}
		out[i] = int16(max(-32768, min(32767, math.Round(x))))
	}
	return out
}

// highPassedEcho returns near with far laid into it as a hybrid returns it:
// high-passed (one pole, about 270 Hz at 8 kHz), lossDB down and delay
// samples late.
func highPassedEcho(near, far []int16, lossDB float64, delay int) []int16 {
	hp := make([]int16, len(far))
	var in, out float64
	for i, v := range far {
		out = 0.79 * (out + float64(v) - in)
		in = float64(v)
		hp[i] = int16(max(-32768, min(32767, math.Round(out))))
	}
	return leakInto(near, hp, lossDB, delay)
}

// echoTestCall is an 8 kHz call of two turns, each talker on a track of
// their own: the Agent's two sentences, then the User's (a sentence said
// twice), with each turn's span in seconds.
type echoTestCall struct {
	agent, user         []int16
	agentText, userText string
	agentTurn, userTurn [2]float64
}

func newEchoTestCall(t *testing.T) echoTestCall {
	t.Helper()
	const rate = 8000
	c := echoTestCall{agentText: agentLine + " " + shortLine, userText: userLine + " " + userLine}
	agent, user := speak(t, "slt", c.agentText, rate), speak(t, "rms", c.userText, rate)
	sec := func(pcm []int16) float64 { return float64(len(pcm)) / rate }
	c.agentTurn = [2]float64{0.5, 0.5 + sec(agent)}
	c.userTurn = [2]float64{c.agentTurn[1] + 0.8, c.agentTurn[1] + 0.8 + sec(user)}
	length := c.userTurn[1] + 0.8
	c.agent = track(rate, length, clip{c.agentTurn[0], agent})
	c.user = track(rate, length, clip{c.userTurn[0], user})
	return c
}

type echoLine struct {
	Channel    int     `json:"channel"`
	OfChannel  int     `json:"of_channel"`
	DelayMS    int     `json:"delay_ms"`
	LossDB     float64 `json:"loss_db"`
	EchoFrames int     `json:"echo_frames"`
}

// A two-channel call whose legs each carry the other talker 20 dB down and
// 40 ms late: the engine finds that path on both legs and transcribes each
// talker on their own channel only, where keeping the echo (KeepEcho) puts
// the other talker's words on a channel too.
func TestEchoOfTheOtherLegIsNotTranscribed(t *testing.T) {
	needModel(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	const rate = 8000
	c := newEchoTestCall(t)
	delay := 40 * rate / 1000
	audio := wavOf(t, rate, leakInto(c.agent, c.user, 20, delay), leakInto(c.user, c.agent, 20, delay))
	turns := [2][2]float64{c.agentTurn, c.userTurn}

	decode := func(cfg Config) (*callscribe.TranscriptionResult, []echoLine) {
		res, logs := transcribeWithLogs(t, cfg, audio)
		var lines []echoLine
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, `"msg":"sphinx echo"`) {
				var e echoLine
				if err := json.Unmarshal([]byte(l), &e); err != nil {
					t.Fatal(err)
				}
				lines = append(lines, e)
			}
		}
		return res, lines
	}
	// strays returns the segments that lie in the other talker's turn.
	strays := func(res *callscribe.TranscriptionResult) []callscribe.Segment {
		var out []callscribe.Segment
		for _, s := range res.Transcript {
			other := turns[1-s.SpeakerID]
			if s.TimeStart > other[0]-0.1 && s.TimeEnd < other[1]+0.3 {
				out = append(out, s)
			}
		}
		return out
	}

	res, lines := decode(Config{})
	if len(lines) != 2 {
		t.Fatalf("echo paths logged: %+v, want one per leg", lines)
	}
	for _, e := range lines {
		if e.OfChannel != 1-e.Channel || e.DelayMS < 30 || e.DelayMS > 50 || math.Abs(e.LossDB-20) > 2 || e.EchoFrames < 100 {
			t.Errorf("echo path %+v, want the other channel's, 40 ms late, 20 dB down, and its frames taken out", e)
		}
	}
	if s := strays(res); len(s) > 0 {
		t.Errorf("segments in the other talker's turn: %+v", s)
	}
	text := speakerTexts(res)
	if w := wer(c.agentText, text[0]); w > 0.3 {
		t.Errorf("agent WER %.0f%%: %q", 100*w, text[0])
	}
	if w := wer(c.userText, text[1]); w > 0.3 {
		t.Errorf("user WER %.0f%%: %q", 100*w, text[1])
	}

	kept, lines := decode(Config{KeepEcho: true})
	if len(lines) != 0 {
		t.Errorf("KeepEcho: echo paths logged: %+v", lines)
	}
	if len(strays(kept)) == 0 {
		t.Errorf("KeepEcho: no segment in the other talker's turn, so this call tests nothing: %+v", kept.Transcript)
	}
}

// checkEchoPaths checks that Echoes finds no path in a call of two legs
// without echo, and both legs' paths, delay and loss, when each carries the
// other's echo plainly or high-passed as a hybrid returns it (its loss then
// reads a few dB over the gain, which the high-pass adds to), for delays of
// one frame to 150 ms.
func checkEchoPaths(t *testing.T, agent, user []int16, rate int) {
	t.Helper()
	tr := &Transcriber{cfg: Config{}, log: slog.New(slog.DiscardHandler)}
	if reports, err := tr.Echoes([][]int16{agent, user}, rate); err != nil || len(reports) != 0 {
		t.Errorf("the call without echo: %+v, %v", reports, err)
	}
	for name, leak := range map[string]func(near, far []int16, lossDB float64, delay int) []int16{
		"plain": leakInto, "high-passed": highPassedEcho,
	} {
		for _, e := range []struct {
			lossDB  float64
			delayMS int
		}{{20, 40}, {12, 10}, {25, 150}} {
			d := e.delayMS * rate / 1000
			reports, err := tr.Echoes([][]int16{leak(agent, user, e.lossDB, d), leak(user, agent, e.lossDB, d)}, rate)
			if err != nil {
				t.Fatal(err)
			}
			if len(reports) != 2 {
				t.Errorf("%s echo %v dB down, %d ms late: %+v, want a path on each leg", name, e.lossDB, e.delayMS, reports)
				continue
			}
			for _, r := range reports {
				if r.DelayMS < e.delayMS-10 || r.DelayMS > e.delayMS+10 || r.LossDB < e.lossDB-0.5 || r.LossDB > e.lossDB+10 {
					t.Errorf("%s echo %v dB down, %d ms late: estimated %+v", name, e.lossDB, e.delayMS, r)
				}
			}
		}
	}
}

// Synthesised voices, one high and one low (Echoes decodes nothing).
func TestEchoPathsOfSynthesisedVoices(t *testing.T) {
	needModel(t)
	c := newEchoTestCall(t)
	checkEchoPaths(t, c.agent, c.user, 8000)
}

// Real read speech: two turns of a LibriVox reader on each leg (16 kHz).
func TestEchoPathsOfRealSpeech(t *testing.T) {
	needModel(t)
	const dir = "/usr/share/pocketsphinx/test/data/librivox"
	clip := func(name string) []int16 {
		data, err := os.ReadFile(filepath.Join(dir, "sense_and_sensibility_01_austen_64kb-"+name+".wav"))
		if err != nil {
			t.Skip("pocketsphinx-testdata is not installed; run make deps-speech")
		}
		a, err := decode.DecodeWAV(data)
		if err != nil {
			t.Fatal(err)
		}
		return a.Channels[0]
	}
	first := append(clip("0870"), clip("0880")...)
	second := append(clip("0890"), clip("0920")...)
	const rate, gap = 16000, 8000
	n := len(first) + len(second) + 2*gap
	agent, user := make([]int16, n), make([]int16, n)
	copy(agent, first)
	copy(user[len(first)+gap:], second)
	checkEchoPaths(t, agent, user, rate)
}

// Double talk: the User starts a second before the Agent has finished, and
// each leg carries the other's echo 15 dB down. Taking the echo out keeps
// every stretch of each talker's own speech in that talker's regions, the
// overlap included, and drops the echo stretches where the talker is silent.
func TestEchoRemovalKeepsDoubleTalk(t *testing.T) {
	needModel(t)
	const rate = 8000
	c := newEchoTestCall(t)
	// Move the User's turn to start a second before the Agent's ends.
	shift := int((c.userTurn[0] - (c.agentTurn[1] - 1)) * rate)
	user := make([]int16, len(c.user))
	copy(user, c.user[shift:])
	userTurn := [2]float64{c.userTurn[0] - float64(shift)/rate, c.userTurn[1] - float64(shift)/rate}
	delay := 30 * rate / 1000
	legs := [][]int16{leakInto(c.agent, user, 15, delay), leakInto(user, c.agent, 15, delay)}
	own := [][]int16{c.agent, user}
	turns := [][2]float64{c.agentTurn, userTurn}

	tr := &Transcriber{cfg: Config{}, log: slog.New(slog.DiscardHandler)}
	speech, err := tr.callSpeech(legs, rate)
	if err != nil {
		t.Fatal(err)
	}
	if reports := tr.removeEchoes(speech); len(reports) != 2 {
		t.Fatalf("echo paths %+v, want one per leg", reports)
	}
	covered := func(rs []region, at float64) bool {
		s := int(at * 16000) // regions are in 16 kHz samples
		for _, g := range rs {
			if s >= g.Start && s < g.End {
				return true
			}
		}
		return false
	}
	for ch := range legs {
		// Every 10 ms where the talker's own track is loud lies in a region.
		lost := 0
		for i := 0; i+80 <= len(own[ch]); i += 80 {
			var e float64
			for _, v := range own[ch][i : i+80] {
				e += float64(v) * float64(v)
			}
			if e/80 > 1e5 && !covered(speech[ch].regions, float64(i)/rate) { // about -25 dBFS
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("channel %d: %d frames of its own loud speech outside its regions %v", ch, lost, speech[ch].regions)
		}
		// The other talker's turn, away from the overlap, is not in them.
		other := turns[1-ch]
		for at := other[0] + 0.5; at < other[1]-0.5; at += 0.1 {
			if at > turns[ch][0]-0.3 && at < turns[ch][1]+0.3 {
				continue
			}
			if covered(speech[ch].regions, at) {
				t.Errorf("channel %d: the other talker's echo at %.1f s is still in its regions %v", ch, at, speech[ch].regions)
				break
			}
		}
	}
}
