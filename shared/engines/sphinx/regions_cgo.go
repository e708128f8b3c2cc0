//go:build cgo

package sphinx

const (
	frameShift = 160 // samples per 10 ms frame at 16 kHz
	// maxRegion splits very long stretches of speech: utterances of more than
	// half a minute slow the search and gain nothing from the longer context.
	maxRegion = 30 * targetRate
)

// findRegions runs the front end's VAD over the whole (resampled) channel in
// frame-shift blocks and returns the speech regions it marks.
func findRegions(r *resampler, threshold float64) ([]region, error) {
	v, err := newVAD(threshold)
	if err != nil {
		return nil, err
	}
	defer v.close()
	var (
		regions []region
		buf     = make([]int16, 4096)
		start   = -1 // frame where the current region began
		frame   = -1 // index of the last frame the front end computed
		fed     = 0
		size    = v.frameSize()
	)
	total := r.Len()
	closeRegion := func(end int) {
		s := max(0, (start-vadStart-vadPre)*frameShift)
		e := min(total, end*frameShift+size)
		if n := len(regions); n > 0 && s <= regions[n-1].End {
			regions[n-1].End = e
			return
		}
		regions = append(regions, region{s, e})
	}
	for from := 0; from < total; from += len(buf) {
		n := r.Read(buf, from)
		for off := 0; off < n; off += frameShift {
			block := buf[off:min(off+frameShift, n)]
			speech, err := v.feed(block)
			if err != nil {
				return nil, err
			}
			fed += len(block)
			if fed < size {
				continue
			}
			frame = (fed - size) / frameShift
			switch {
			case speech && start < 0:
				start = frame
			case !speech && start >= 0:
				// The state turns to silence vadPost frames after speech ended.
				closeRegion(frame - vadPost/2)
				start = -1
			}
		}
	}
	if start >= 0 {
		closeRegion(frame)
	}
	var out []region
	for _, g := range regions {
		for g.End-g.Start > maxRegion {
			out = append(out, region{g.Start, g.Start + maxRegion})
			g.Start += maxRegion
		}
		if g.End > g.Start {
			out = append(out, g)
		}
	}
	return out, nil
}
