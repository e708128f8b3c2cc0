package whisperstandin

import (
	"math"
	"sort"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

// The stand-in "hears" tone-words: each word of Vocabulary is a pure tone of
// its own frequency. A fixture built by ToneCall speaks lines of such words,
// and the stand-in finds them again in whatever audio it is sent (after the
// service has split, converted or decoded it), so its answer depends on what
// actually arrived.

// Vocabulary maps each word the stand-in can hear to its tone (Hz). The
// frequencies are 200 Hz apart, four bins of a 20 ms frame at 8 kHz, and all
// below telephone audio's 4 kHz Nyquist limit.
var Vocabulary = map[string]float64{
	"hello": 400, "thanks": 600, "for": 800, "calling": 1000,
	"my": 1200, "bill": 1400, "was": 1600, "charged": 1800,
	"twice": 2000, "sorry": 2200, "refund": 2400, "issued": 2600,
	"today": 2800, "great": 3000, "goodbye": 3200, "account": 3400,
}

// Timing of the words ToneCall writes: each word sounds for WordSeconds and
// is followed by WordGap of silence within a line. Both are multiples of
// frameSeconds, so a word's edges fall on frame edges and the stand-in times
// it exactly on a lossless path.
const (
	WordSeconds = 0.3
	WordGap     = 0.1
	// segmentGap is the silence at which the stand-in starts a new segment;
	// ToneCall's lines must be further apart than this.
	segmentGap   = 0.3
	frameSeconds = 0.02
	toneAmp      = 0.5
	// silentRMS is the frame level (of full scale) below which a frame is
	// silence: far under a tone's 0.35, far over MP3 coding noise.
	silentRMS = 0.02
	// minShare is the share of a frame's energy its strongest vocabulary tone
	// must hold for the frame to count as that word.
	minShare = 0.5
)

// Line is a run of words spoken on one channel from Start (seconds, a
// multiple of 0.02).
type Line struct {
	Channel int
	Start   float64
	Words   []string
}

// End is when the line's last word stops.
func (l Line) End() float64 {
	return centi(l.Start + float64(len(l.Words))*(WordSeconds+WordGap) - WordGap)
}

// WordTimes are the start and end of each word of the line, to the
// centisecond as the stand-in reports them.
func (l Line) WordTimes() [][2]float64 {
	out := make([][2]float64, len(l.Words))
	for i := range l.Words {
		s := l.Start + float64(i)*(WordSeconds+WordGap)
		out[i] = [2]float64{centi(s), centi(s + WordSeconds)}
	}
	return out
}

// ToneCall writes lines into a 16-bit PCM WAV of the given rate, channel
// count and length. Each tone fades in and out over 5 ms so that lossy
// coding (MP3) does not smear clicks across the silence.
func ToneCall(rate, channels int, seconds float64, lines []Line) []byte {
	n := int(math.Round(seconds * float64(rate)))
	pcm := make([][]int16, channels)
	for ch := range pcm {
		pcm[ch] = make([]int16, n)
	}
	fade := int(0.005 * float64(rate))
	for _, l := range lines {
		for i, w := range l.Words {
			freq, ok := Vocabulary[w]
			if !ok {
				panic("whisperstandin: " + w + " is not in Vocabulary")
			}
			t := l.WordTimes()[i]
			from, to := int(math.Round(t[0]*float64(rate))), int(math.Round(t[1]*float64(rate)))
			for k := from; k < to && k < n; k++ {
				g := 1.0
				if d := min(k-from, to-1-k); d < fade {
					g = float64(d) / float64(fade)
				}
				v := toneAmp * g * math.Sin(2*math.Pi*freq*float64(k-from)/float64(rate))
				pcm[l.Channel][k] = int16(math.Round(v * math.MaxInt16))
			}
		}
	}
	return decode.EncodeWAV(rate, pcm...)
}

// heardWord is one word found in audio, timed to frames.
type heardWord struct {
	word       string
	start, end float64
}

// hear finds the vocabulary's words in mono PCM: 20 ms frames whose
// strongest vocabulary tone holds most of their energy are that word, runs
// of such frames are one word (a run of one frame is an edge, not a word),
// and a silence of segmentGap or more ends a segment.
func hear(pcm []int16, rate int) [][]heardWord {
	frame := int(frameSeconds * float64(rate))
	words := make([]string, 0, len(Vocabulary))
	for w := range Vocabulary {
		words = append(words, w)
	}
	sort.Strings(words)
	var runs []heardWord
	for i := 0; i+frame <= len(pcm); i += frame {
		w := frameWord(pcm[i:i+frame], rate, words)
		t := float64(i) / float64(rate)
		if w == "" {
			continue
		}
		if k := len(runs) - 1; k >= 0 && runs[k].word == w && t-runs[k].end < frameSeconds/2 {
			runs[k].end = t + frameSeconds
			continue
		}
		runs = append(runs, heardWord{word: w, start: t, end: t + frameSeconds})
	}
	var segs [][]heardWord
	var prevEnd float64
	for _, r := range runs {
		if r.end-r.start < 1.5*frameSeconds {
			continue
		}
		r.start, r.end = centi(r.start), centi(r.end)
		if len(segs) == 0 || r.start-prevEnd >= segmentGap {
			segs = append(segs, nil)
		}
		segs[len(segs)-1] = append(segs[len(segs)-1], r)
		prevEnd = r.end
	}
	return segs
}

// centi rounds to the centisecond, the resolution Whisper servers report.
func centi(s float64) float64 { return math.Round(s*100) / 100 }

func frameWord(frame []int16, rate int, words []string) string {
	var energy float64
	for _, x := range frame {
		v := float64(x) / math.MaxInt16
		energy += v * v
	}
	if math.Sqrt(energy/float64(len(frame))) < silentRMS {
		return ""
	}
	best, bestShare := "", 0.0
	for _, w := range words {
		if s := goertzelShare(frame, rate, Vocabulary[w], energy); s > bestShare {
			best, bestShare = w, s
		}
	}
	if bestShare < minShare {
		return ""
	}
	return best
}

// goertzelShare is the share of frame's energy at freq.
func goertzelShare(frame []int16, rate int, freq, energy float64) float64 {
	k := 2 * math.Cos(2*math.Pi*freq/float64(rate))
	var s1, s2 float64
	for _, x := range frame {
		s0 := float64(x)/math.MaxInt16 + k*s1 - s2
		s2, s1 = s1, s0
	}
	return 2 * (s1*s1 + s2*s2 - k*s1*s2) / (float64(len(frame)) * energy)
}
