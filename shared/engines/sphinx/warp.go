package sphinx

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Vocal tract length normalisation, chosen per channel.
//
// A speaker's formants sit higher or lower than the average speaker's as
// their vocal tract is shorter or longer, and the acoustic model, trained on
// many speakers, is widest where they overlap. Warping the frequency axis of
// the mel filters by a factor near 1 moves a speaker's spectrum towards that
// middle. MLLR can move the cepstral means by a linear map, but a shift along
// the frequency axis is not a linear map of 13 cepstra taken of a telephone
// band, so the two compose.
//
// The factor is the one whose features the channel's first-pass words align
// to with the highest likelihood per frame, as SphinxTrain's VTLN recipe
// chooses it for training speakers; the likelihoods leave out the warp's
// Jacobian, as that recipe does, which is fair over a few percent of warp.
// One bw run aligns every candidate's features at once, and the chosen
// features go on to the speaker's MLLR rounds and the final decode.
//
// The front end warps with sphinxbase's inverse_linear function: the
// spectrum at frequency f is analysed as if it were at f divided by the
// factor, so a factor above 1 lowers a speaker's formants.

// AlignmentScore is one utterance's alignment in bw's report: its frames and
// the log-likelihood of the best-aligned model path summed over them.
type AlignmentScore struct {
	Frames int
	LogLik float64
}

// parseAlignmentScores reads bw's report (its standard output): a line
//
//	utt> SEQ ID FRAMES EXTRA STATES [search statistics] LOGLIK_PER_FRAME LOGLIK
//
// per utterance, without the two likelihoods when the utterance could not be
// aligned, and with nothing after FRAMES (and no line end) when it was too
// short to try. Builds of SphinxTrain differ in the statistics they print
// before the likelihoods, so a line counts as aligned when it ends in two
// numbers in bw's %e format that agree with each other and its frames.
func parseAlignmentScores(report string) (map[string]AlignmentScore, error) {
	scores := map[string]AlignmentScore{}
	for _, chunk := range strings.Split(report, "utt>")[1:] {
		line, _, _ := strings.Cut(chunk, "\n")
		f := strings.Fields(line)
		if len(f) < 7 {
			continue
		}
		frames, err := strconv.Atoi(f[2])
		if err != nil || frames <= 0 {
			return nil, fmt.Errorf("bw's report has a line with frames %q", f[2])
		}
		perFrame, err1 := strconv.ParseFloat(f[len(f)-2], 64)
		ll, err2 := strconv.ParseFloat(f[len(f)-1], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bw's report has a line that does not end in numbers: %q", strings.TrimSpace(line))
		}
		if math.IsNaN(ll) || math.IsInf(ll, 0) {
			return nil, fmt.Errorf("bw's report has a log-likelihood of %v", ll)
		}
		// bw prints the likelihoods with %e; the statistics before them are
		// counts. Without likelihoods the utterance was not aligned.
		scientific := strings.ContainsRune(f[len(f)-2], 'e') && strings.ContainsRune(f[len(f)-1], 'e')
		if !scientific || math.Abs(ll/float64(frames)-perFrame) > 1e-3*math.Max(1, math.Abs(perFrame)) {
			continue
		}
		scores[f[1]] = AlignmentScore{Frames: frames, LogLik: ll}
	}
	return scores, nil
}

// warpUtteranceID names the alignment utterance j of region i under the
// warp candidate k.
func warpUtteranceID(k, i, j int) string { return fmt.Sprintf("w%d-r%04d-%02d", k, i, j) }

// bestWarp returns the candidate whose utterances align with the highest
// log-likelihood per frame, and each candidate's figure (nil when no
// utterance was aligned under them all). Only utterances every candidate aligned count, so all are scored on
// the same frames. Candidate 0 is the unwarped front end; another wins only
// when it beats candidate 0 by more than margin per frame.
func bestWarp(scores map[string]AlignmentScore, ids [][]string, margin float64) (int, []float64) {
	if len(ids) == 0 {
		return 0, nil
	}
	perFrame := make([]float64, len(ids))
	sums := make([]float64, len(ids))
	frames := 0
	for j := range ids[0] {
		common := true
		for k := range ids {
			if j >= len(ids[k]) {
				common = false
				break
			}
			if _, ok := scores[ids[k][j]]; !ok {
				common = false
				break
			}
		}
		if !common {
			continue
		}
		for k := range ids {
			sums[k] += scores[ids[k][j]].LogLik
		}
		frames += scores[ids[0][j]].Frames
	}
	if frames == 0 {
		return 0, nil
	}
	best := 0
	for k := range ids {
		perFrame[k] = sums[k] / float64(frames)
		if k > 0 && perFrame[k] > perFrame[0]+margin && perFrame[k] > perFrame[best] {
			best = k
		}
	}
	return best, perFrame
}

// DefaultSpeakerWarpFactors: see Config.SpeakerWarpFactors. Chosen on the
// bench's dev split (infra/bench/README.md, "Accuracy by condition"): errors
// without a warp, with these and with 0.96, 1.04, 1.08 and 1.12: the tuned
// voices through a line 204 / 192 / 194, clean 149 / 139 / -, the formant
// voices 417 / 418 / -, LibriVox 25 / 25 / 25 of 71. The synthetic voices'
// likelihoods rise or fall steadily across the factors, so a wider range
// only takes them further out, where the line's User channels lost words;
// the real reader's likelihood peaks at 1. 1.04 is there for a voice whose
// peak falls between (none on dev did); each factor costs one more
// alignment of the channel's confident words (about 0.007 CPU-seconds per
// second of audio).
var DefaultSpeakerWarpFactors = []float64{1.04, 1.08}

// speakerWarpFactors returns the warps to try besides none: configured's
// factors other than 1, or the defaults when it is nil.
func speakerWarpFactors(configured []float64) []float64 {
	if configured == nil {
		configured = DefaultSpeakerWarpFactors
	}
	var out []float64
	for _, f := range configured {
		if f != 1 {
			out = append(out, f)
		}
	}
	return out
}
