package sphinx

import "math"

// resampler converts a channel to the 16 kHz the acoustic model was trained on,
// with a windowed-sinc polyphase filter. Telephone audio (8 kHz) must be
// upsampled this way rather than decoded with -samprate 8000: the model's filter
// bank then sees the band it was trained on (measured: native 8 kHz decoding gave
// 70-90% WER).
//
// Any output range can be computed on its own from the source, so callers
// resample only the block they need (a VAD window, one speech region) and memory
// stays bounded by that block rather than the file.
type resampler struct {
	src      []int16
	up, down int         // output rate / input rate = up/down, reduced
	half     int         // taps on each side of the centre
	phases   [][]float32 // [phase][tap]
	identity bool
}

const targetRate = 16000

// region is a span of speech in 16 kHz output samples [Start, End).
type region struct{ Start, End int }

func newResampler(src []int16, fromRate int) *resampler {
	g := gcd(fromRate, targetRate)
	r := &resampler{src: src, up: targetRate / g, down: fromRate / g}
	if r.up == r.down {
		r.identity = true
		return r
	}
	// Cutoff relative to the input's Nyquist: 1 when upsampling, the ratio when
	// downsampling, slightly lowered so the transition band stays below Nyquist.
	cut := 0.95 * math.Min(1, float64(r.up)/float64(r.down))
	const zeroCrossings = 12
	r.half = int(math.Ceil(zeroCrossings / cut))
	r.phases = make([][]float32, r.up)
	for p := range r.phases {
		frac := float64(p) / float64(r.up)
		taps := make([]float32, 2*r.half)
		var sum float64
		for j := range taps {
			// Tap j weighs source sample i+d with d = j-half+1, at distance frac-d.
			u := frac - float64(j-r.half+1)
			v := cut * sinc(cut*u) * blackman(u/float64(r.half))
			taps[j] = float32(v)
			sum += v
		}
		// Normalise each phase to unit DC gain so no phase adds a ripple.
		for j := range taps {
			taps[j] = float32(float64(taps[j]) / sum)
		}
		r.phases[p] = taps
	}
	return r
}

// Len is the number of output samples.
func (r *resampler) Len() int {
	return int(int64(len(r.src)) * int64(r.up) / int64(r.down))
}

// Read fills dst with output samples starting at output index from and returns
// how many it wrote (fewer at the end of the source).
func (r *resampler) Read(dst []int16, from int) int {
	n := min(len(dst), r.Len()-from)
	if n <= 0 {
		return 0
	}
	if r.identity {
		return copy(dst[:n], r.src[from:from+n])
	}
	for k := 0; k < n; k++ {
		pos := int64(from+k) * int64(r.down)
		i := int(pos / int64(r.up))
		taps := r.phases[pos%int64(r.up)]
		base := i - r.half + 1
		var acc float32
		if base >= 0 && base+len(taps) <= len(r.src) {
			s := r.src[base : base+len(taps)]
			for j, t := range taps {
				acc += t * float32(s[j])
			}
		} else {
			for j, t := range taps {
				if x := base + j; x >= 0 && x < len(r.src) {
					acc += t * float32(r.src[x])
				}
			}
		}
		dst[k] = clamp16(acc)
	}
	return n
}

func clamp16(v float32) int16 {
	switch {
	case v > 32767:
		return 32767
	case v < -32768:
		return -32768
	}
	return int16(math.Round(float64(v)))
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// blackman is the Blackman window over [-1, 1].
func blackman(x float64) float64 {
	if x <= -1 || x >= 1 {
		return 0
	}
	t := (x + 1) / 2
	return 0.42 - 0.5*math.Cos(2*math.Pi*t) + 0.08*math.Cos(4*math.Pi*t)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
