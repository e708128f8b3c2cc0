//go:build cgo

package sphinx

// findRegions runs the front end's VAD over the whole (resampled) channel in
// frame-shift blocks and returns the speech regions it marks, refined by level
// (regions.go), and how far the speech lies above the channel's noise floor
// (speechOverFloor, dB), with the channel's frame levels (frameLevels), which
// the echo between two channels is measured on (echo.go).
func findRegions(r *resampler, threshold float64) ([]region, float64, []float64, error) {
	v, err := newVAD(threshold)
	if err != nil {
		return nil, 0, nil, err
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
	// Energy of each 10 ms block, from the same samples the VAD reads.
	blocks := make([]float64, (total+frameShift-1)/frameShift)
	closeRegion := func(end int) {
		s := max(0, (start-vadStart-vadPre)*frameShift)
		e := min(total, end*frameShift+size)
		regions = appendRegion(regions, region{s, e})
	}
	for from := 0; from < total; from += len(buf) {
		n := r.Read(buf, from)
		for k, x := range buf[:n] {
			blocks[(from+k)/frameShift] += float64(x) * float64(x)
		}
		for off := 0; off < n; off += frameShift {
			block := buf[off:min(off+frameShift, n)]
			speech, err := v.feed(block)
			if err != nil {
				return nil, 0, nil, err
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
	db := frameLevels(blocks)
	regions = refineRegions(db, regions)
	return regions, speechOverFloor(db, regions), db, nil
}
