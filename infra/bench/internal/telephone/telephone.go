// Package telephone simulates what a telephone line does to a call's audio, so
// the speech bench can measure the engine under conditions it was not tuned on:
// the voice band (300-3400 Hz), the G.711 codecs (mu-law and A-law) and GSM
// 06.10 (through sox), line noise at a chosen signal-to-noise ratio, level
// changes and clipping.
//
// Every step is deterministic: the noise comes from a seeded generator, so a
// condition gives the same audio on every machine and the bench's figures can
// be compared across commits. Audio is 8 kHz, 16-bit; each channel of a call
// passes its own line, as a two-channel call recorder receives each leg of the
// call over its own line. The one thing that crosses between the legs is echo:
// a hybrid or a handset that leaks lets the other talker's speech into a leg,
// fainter and late, and a per-channel recogniser hears it as speech of its
// own (Condition.EchoLossDB).
package telephone

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Rate is the sample rate a condition expects and returns.
const Rate = 8000

// Condition is one simulated line: the steps run in the order a call meets
// them (the talker's level, noise picked up on the line, the channel's voice
// band, clipping in the handset's converter, then the codec).
type Condition struct {
	Name string
	// Doc says in a few words what the condition is, for the bench's table.
	Doc string
	// GainDB changes the speech level before anything else; a gain that
	// pushes samples past full scale clips them, since 16-bit audio has
	// nowhere else to go (handset or gateway overload).
	GainDB float64
	// SNRDB adds pink noise at this ratio to the channel's active speech
	// level (0: no noise).
	SNRDB float64
	// Band filters to the telephone voice band, 300-3400 Hz.
	Band bool
	// Codec is "", "mulaw", "alaw" or "gsm".
	Codec string
	// EchoLossDB (0: none) lays the other leg's speech into each leg of a
	// two-channel call this many dB below its own level (the echo return
	// loss), EchoDelayMS late, before the leg's own line (ApplyCall).
	EchoLossDB  float64
	EchoDelayMS float64
}

// Conditions are the simulated lines the bench knows, by name. "line" is the
// telephone call most people get: voice band, G.711 mu-law, faint line
// noise 35 dB below the speech.
var Conditions = []Condition{
	{Name: "clean", Doc: "no channel: the synthesis as it is"},
	{Name: "band", Doc: "300-3400 Hz voice band", Band: true},
	{Name: "mulaw", Doc: "voice band, G.711 mu-law", Band: true, Codec: "mulaw"},
	{Name: "alaw", Doc: "voice band, G.711 A-law", Band: true, Codec: "alaw"},
	{Name: "gsm", Doc: "voice band, GSM 06.10 full rate (sox)", Band: true, Codec: "gsm"},
	{Name: "line", Doc: "voice band, mu-law, pink noise at 35 dB SNR", Band: true, Codec: "mulaw", SNRDB: 35},
	{Name: "noise30", Doc: "voice band, mu-law, pink noise at 30 dB SNR", Band: true, Codec: "mulaw", SNRDB: 30},
	{Name: "noise20", Doc: "voice band, mu-law, pink noise at 20 dB SNR", Band: true, Codec: "mulaw", SNRDB: 20},
	{Name: "noise10", Doc: "voice band, mu-law, pink noise at 10 dB SNR", Band: true, Codec: "mulaw", SNRDB: 10},
	{Name: "quiet", Doc: "speech 24 dB quieter, voice band, mu-law", GainDB: -24, Band: true, Codec: "mulaw"},
	{Name: "clipped", Doc: "speech 12 dB hotter, clipped at full scale, voice band, mu-law", GainDB: 12, Band: true, Codec: "mulaw"},
	{Name: "alaw-noise20", Doc: "voice band, A-law, pink noise at 20 dB SNR", Band: true, Codec: "alaw", SNRDB: 20},
	{Name: "gsm-noise20", Doc: "voice band, GSM 06.10, pink noise at 20 dB SNR", Band: true, Codec: "gsm", SNRDB: 20},
	{Name: "echo", Doc: "line, with the other leg's speech 20 dB down and 40 ms late in each leg", Band: true, Codec: "mulaw", SNRDB: 35, EchoLossDB: 20, EchoDelayMS: 40},
	{Name: "echo15", Doc: "line, with the other leg's speech 15 dB down and 24 ms late in each leg", Band: true, Codec: "mulaw", SNRDB: 35, EchoLossDB: 15, EchoDelayMS: 24},
}

// Lookup returns the named condition.
func Lookup(name string) (Condition, error) {
	for _, c := range Conditions {
		if c.Name == name {
			return c, nil
		}
	}
	names := make([]string, len(Conditions))
	for i, c := range Conditions {
		names[i] = c.Name
	}
	return Condition{}, fmt.Errorf("unknown line condition %q (known: %s)", name, strings.Join(names, ", "))
}

// ApplyCall runs the condition over every channel of a call: each leg takes
// the other's echo first (two-channel calls only), then its own line. seed
// makes each channel's noise its own (seed*16 + the channel).
func (c Condition) ApplyCall(channels [][]int16, seed uint64) ([][]int16, error) {
	legs := channels
	if c.EchoLossDB > 0 && len(channels) == 2 {
		legs = [][]int16{
			WithEcho(channels[0], channels[1], c.EchoLossDB, c.EchoDelayMS),
			WithEcho(channels[1], channels[0], c.EchoLossDB, c.EchoDelayMS),
		}
	}
	out := make([][]int16, len(legs))
	for i, leg := range legs {
		var err error
		if out[i], err = c.Apply(leg, seed*16+uint64(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WithEcho returns near with far laid into it lossDB below far's own level
// and delayMS late (8 kHz audio); near keeps its length.
func WithEcho(near, far []int16, lossDB, delayMS float64) []int16 {
	g := math.Pow(10, -lossDB/20)
	delay := int(math.Round(delayMS * Rate / 1000))
	out := make([]int16, len(near))
	for i, v := range near {
		x := float64(v)
		if j := i - delay; j >= 0 && j < len(far) {
			x += g * float64(far[j])
		}
		out[i] = saturate(x)
	}
	return out
}

// Apply runs the condition over one channel of 8 kHz audio (without echo,
// which needs the call's other channel: ApplyCall). seed makes the
// noise of each channel its own and repeatable.
func (c Condition) Apply(pcm []int16, seed uint64) ([]int16, error) {
	x := make([]float64, len(pcm))
	for i, v := range pcm {
		x[i] = float64(v)
	}
	if c.GainDB != 0 {
		g := math.Pow(10, c.GainDB/20)
		for i := range x {
			x[i] *= g
		}
	}
	if c.SNRDB > 0 {
		level := ActiveLevel(x)
		if level > 0 {
			noise := PinkNoise(len(x), seed)
			scale := math.Sqrt(level/math.Pow(10, c.SNRDB/10)) / rms(noise)
			for i := range x {
				x[i] += scale * noise[i]
			}
		}
	}
	if c.Band {
		x = BandPass(x)
	}
	out := make([]int16, len(x))
	for i, v := range x {
		out[i] = saturate(v)
	}
	switch c.Codec {
	case "":
	case "mulaw":
		for i, v := range out {
			out[i] = MuLawDecode(MuLawEncode(v))
		}
	case "alaw":
		for i, v := range out {
			out[i] = ALawDecode(ALawEncode(v))
		}
	case "gsm":
		return gsmRoundTrip(out)
	default:
		return nil, fmt.Errorf("unknown codec %q", c.Codec)
	}
	return out, nil
}

func saturate(v float64) int16 {
	v = math.Round(v)
	if v > math.MaxInt16 {
		return math.MaxInt16
	}
	if v < math.MinInt16 {
		return math.MinInt16
	}
	return int16(v)
}

func rms(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	if len(x) == 0 {
		return 0
	}
	return math.Sqrt(s / float64(len(x)))
}

// ActiveLevel is the mean power of the channel's speech: the mean over 20 ms
// frames within 30 dB of the loudest tenth of frames (the way ITU-T P.56
// measures an active speech level, simplified), so silence between turns does
// not dilute it. 0 for a silent channel.
func ActiveLevel(x []float64) float64 {
	const frame = Rate / 50
	var powers []float64
	for i := 0; i+frame <= len(x); i += frame {
		var s float64
		for _, v := range x[i : i+frame] {
			s += v * v
		}
		powers = append(powers, s/frame)
	}
	if len(powers) == 0 {
		return 0
	}
	sorted := append([]float64(nil), powers...)
	sort.Float64s(sorted)
	top := sorted[len(sorted)*9/10]
	if top < 1 { // below one quantisation step: silence
		return 0
	}
	floor := top / 1000 // 30 dB
	var sum float64
	var n int
	for _, p := range powers {
		if p >= floor {
			sum += p
			n++
		}
	}
	return sum / float64(n)
}

// PinkNoise returns n samples of noise whose power falls 3 dB an octave (Paul
// Kellet's three-pole approximation of a 1/f spectrum over white noise), the
// usual stand-in for line and room noise, from a seeded generator.
func PinkNoise(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x7e1e9a0e))
	out := make([]float64, n)
	var b0, b1, b2 float64
	for i := range out {
		w := r.NormFloat64()
		b0 = 0.99765*b0 + w*0.0990460
		b1 = 0.96300*b1 + w*0.2965164
		b2 = 0.57000*b2 + w*1.0526913
		out[i] = b0 + b1 + b2 + w*0.1848
	}
	return out
}

// bandTaps is the voice-band filter: a linear-phase FIR band-pass, 300 to
// 3400 Hz at 8 kHz (windowed sinc, Blackman window, 255 taps: about 60 dB
// down by 150 Hz outside the band).
var bandTaps = func() []float64 {
	const n = 255
	lo, hi := 300.0/Rate, 3400.0/Rate
	taps := make([]float64, n)
	m := float64(n-1) / 2
	for i := range taps {
		t := float64(i) - m
		var h float64
		if t == 0 {
			h = 2 * (hi - lo)
		} else {
			h = (math.Sin(2*math.Pi*hi*t) - math.Sin(2*math.Pi*lo*t)) / (math.Pi * t)
		}
		w := 0.42 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n-1)) + 0.08*math.Cos(4*math.Pi*float64(i)/float64(n-1))
		taps[i] = h * w
	}
	return taps
}()

// BandPass filters x to the voice band; the output is aligned with the input
// (the filter's delay is taken out).
func BandPass(x []float64) []float64 {
	half := len(bandTaps) / 2
	out := make([]float64, len(x))
	for i := range out {
		var s float64
		for k, h := range bandTaps {
			j := i + half - k
			if j >= 0 && j < len(x) {
				s += h * x[j]
			}
		}
		out[i] = s
	}
	return out
}

// MuLawEncode is G.711's mu-law compression of one 16-bit sample to 8 bits.
func MuLawEncode(v int16) byte {
	const bias, clip = 0x84, 32635
	s := int(v)
	sign := 0
	if s < 0 {
		s = -s
		sign = 0x80
	}
	if s > clip {
		s = clip
	}
	s += bias
	exp := 7
	for mask := 0x4000; exp > 0 && s&mask == 0; mask >>= 1 {
		exp--
	}
	mant := (s >> (exp + 3)) & 0x0f
	return ^byte(sign | exp<<4 | mant)
}

// MuLawDecode expands a mu-law byte back to a 16-bit sample.
func MuLawDecode(b byte) int16 {
	b = ^b
	sign := b & 0x80
	exp := int(b>>4) & 0x07
	mant := int(b & 0x0f)
	s := ((mant << 3) + 0x84) << exp
	s -= 0x84
	if sign != 0 {
		return int16(-s)
	}
	return int16(s)
}

// ALawEncode is G.711's A-law compression of one 16-bit sample to 8 bits.
func ALawEncode(v int16) byte {
	s := int(v) >> 3 // A-law works on 13-bit samples
	sign := 0x80
	if s < 0 {
		s = -s - 1
		sign = 0
	}
	if s > 0xfff {
		s = 0xfff
	}
	var b int
	if s < 32 {
		b = s >> 1
	} else {
		exp := 1
		for t := s >> 5; t > 1; t >>= 1 {
			exp++
		}
		b = exp<<4 | (s>>exp)&0x0f
	}
	return byte(sign|b) ^ 0x55
}

// ALawDecode expands an A-law byte back to a 16-bit sample.
func ALawDecode(b byte) int16 {
	b ^= 0x55
	exp := int(b>>4) & 0x07
	mant := int(b & 0x0f)
	var s int
	if exp == 0 {
		s = mant<<4 + 8
	} else {
		s = (mant<<4 + 0x108) << (exp - 1)
	}
	if b&0x80 == 0 {
		s = -s
	}
	return int16(s)
}

// gsmRoundTrip codes the channel with GSM 06.10 full rate and decodes it
// again, through sox (Debian's sox reads and writes .gsm with libgsm).
func gsmRoundTrip(pcm []int16) ([]int16, error) {
	dir, err := os.MkdirTemp("", "telephone-gsm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	raw := filepath.Join(dir, "in.raw")
	gsm := filepath.Join(dir, "line.gsm")
	back := filepath.Join(dir, "out.raw")
	buf := make([]byte, 2*len(pcm))
	for i, v := range pcm {
		buf[2*i] = byte(v)
		buf[2*i+1] = byte(uint16(v) >> 8)
	}
	if err := os.WriteFile(raw, buf, 0o600); err != nil {
		return nil, err
	}
	pcmArgs := []string{"-t", "raw", "-r", fmt.Sprint(Rate), "-e", "signed", "-b", "16", "-c", "1", "-L"}
	if b, err := exec.Command("sox", append(append([]string{"-D"}, pcmArgs...), raw, gsm)...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sox gsm encode: %v: %s", err, b)
	}
	if b, err := exec.Command("sox", append([]string{"-D", gsm}, append(pcmArgs, back)...)...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sox gsm decode: %v: %s", err, b)
	}
	data, err := os.ReadFile(back)
	if err != nil {
		return nil, err
	}
	out := make([]int16, len(pcm))
	for i := range out {
		if 2*i+1 < len(data) {
			out[i] = int16(uint16(data[2*i]) | uint16(data[2*i+1])<<8)
		}
	}
	return out, nil
}
