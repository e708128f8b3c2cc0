//go:build cgo

package sphinx

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// speakerAdapter adapts the acoustic model to one channel's speaker, without
// transcripts: the channel is decoded once, SphinxTrain aligns that first
// hypothesis to the channel's own features (bw) and estimates an MLLR mean
// transform from the alignment (mllr_solve), and the channel is decoded again
// with it. This is unsupervised speaker adaptation as telephone-speech
// recognisers have long done it; the first pass's errors make the alignment
// noisy, so the channel's own transform is blended with the channel type's
// general one (weight: the channel's share) and channels with few words keep
// the first pass. The transform also narrows the model's variances to the
// speaker's spread (variance.go).
type speakerAdapter struct {
	tools, model, dir string
	// dict is the decoder's pronouncing dictionary; each bw run gets only
	// its transcription's entries (pronunciations.go).
	dict   string
	weight float64
	// rounds and minPosterior are Config's SpeakerAdaptationPasses and
	// SpeakerMinPosterior with their defaults applied.
	rounds       int
	minPosterior float64
	seq          atomic.Int64
	// variancePrior is Config's SpeakerVariancePrior with its default
	// applied (negative: no variance scale); means and vars are the model's
	// Gaussians it is estimated against.
	variancePrior float64
	means, vars   *GaussianParams
	// warpMargin is how much higher a warped front end's alignment
	// log-likelihood per frame must be than the unwarped one's for it to be
	// chosen (chooseWarp).
	warpMargin float64
	// classes is how many classes of Gaussians get a transform of their own
	// (mllrclass.go; 0 or 1: one transform), class each Gaussian's class and
	// classPrior the frames pulling each towards the one-class transform.
	classes    int
	class      []int
	classPrior float64
}

// newSpeakerAdapter prepares SphinxTrain's copy of the model in dir.
func newSpeakerAdapter(tools, hmm, dict, dir string, weight float64) (*speakerAdapter, error) {
	for _, tool := range []string{"bw", "mllr_solve"} {
		if _, err := os.Stat(filepath.Join(tools, tool)); err != nil {
			return nil, fmt.Errorf("sphinx: speaker adaptation needs SphinxTrain's %s (install sphinxtrain): %w", tool, err)
		}
	}
	s := &speakerAdapter{tools: tools, model: filepath.Join(dir, "model"), dict: dict, dir: dir, weight: weight}
	if err := PrepareTrainingModel(hmm, s.model); err != nil {
		return nil, fmt.Errorf("sphinx: preparing the model for speaker adaptation: %w", err)
	}
	var err error
	if s.means, err = ReadGaussianParams(filepath.Join(s.model, "means")); err != nil {
		return nil, fmt.Errorf("sphinx: reading the model for speaker adaptation: %w", err)
	}
	if s.vars, err = ReadGaussianParams(filepath.Join(s.model, "variances")); err != nil {
		return nil, fmt.Errorf("sphinx: reading the model for speaker adaptation: %w", err)
	}
	return s, nil
}

// usePhoneClasses gives each broad phonetic class of the model's Gaussians
// a transform of its own (mllrclass.go).
func (s *speakerAdapter) usePhoneClasses() error {
	mdef, err := os.ReadFile(filepath.Join(s.model, "mdef.txt"))
	if err != nil {
		return err
	}
	bases, filler, err := readBasePhones(mdef)
	if err != nil {
		return err
	}
	class, err := phoneClasses(s.means, bases, filler)
	if err != nil {
		return err
	}
	s.class, s.classes = class, phoneClassCount
	return nil
}

// regionPass is one VAD region's features and first-pass words.
type regionPass struct {
	cep   []float32
	words []word
}

// speakerModel is one round's estimate for a channel. path is the file of
// its one-class transform, which aligns the next round's words; the channel
// is decoded with the transform at decodePath acting on the means in the file
// at means ("" for the model's own). estimate leaves decodePath at path and
// means at ""; withClasses, run on the last round's model only, writes means
// holding the Gaussians as each class's transform moves them and points
// decodePath at a transform that carries only the variance scale. scale is
// the variance scale's mean per stream (nil without one).
type speakerModel struct {
	path, means, decodePath string
	scale                   []float64
	// classFrames are the frames aligned to each class (nil with one class).
	classFrames []float64
	// dir, counts and blended are the round's directory, bw's statistics
	// and its one-class transform, kept for withClasses (counts is nil when
	// there are no classes).
	dir     string
	counts  *gaussianCounts
	blended *MLLR
}

// estimate returns the channel's speaker model, or one with no path when the
// channel has too few words to adapt to. base is the channel type's general
// transform (nil: none, the identity) and alignPath the transform the words
// are aligned with ("" for none: the channel type's, or the previous
// round's); the caller removes the returned directory (the second value).
// With s.minPosterior above zero only runs of words whose posterior reaches
// it are aligned, each as an utterance of its own frames.
func (s *speakerAdapter) estimate(ctx context.Context, passes []regionPass, base *MLLR, alignPath string, streams []int) (speakerModel, string, error) {
	if wordCount(passes) < speakerMinWords {
		return speakerModel{}, "", nil
	}
	dir, accum, err := s.workDir("channel")
	if err != nil {
		return speakerModel{}, dir, err
	}
	set := alignmentSet{dir: dir}
	for i, p := range passes {
		for j, u := range alignmentUtterances(p, s.minPosterior, streams[0]) {
			if err := set.add(fmt.Sprintf("r%04d-%02d", i, j), u); err != nil {
				return speakerModel{}, dir, err
			}
		}
	}
	if set.n == 0 {
		return speakerModel{}, dir, nil
	}
	ctlPath, lsnPath, dictPath, err := set.write(s.dict)
	if err != nil {
		return speakerModel{}, dir, err
	}
	if err := RunBW(ctx, s.tools, s.model, dictPath, ctlPath, lsnPath, dir, accum, alignPath, filepath.Join(dir, "bw.log")); err != nil {
		return speakerModel{}, dir, err
	}
	own, err := SolveMLLR(ctx, s.tools, s.model, accum, filepath.Join(dir, "own.mllr"), filepath.Join(dir, "mllr_solve.log"))
	if err != nil {
		return speakerModel{}, dir, err
	}
	if own.Classes != 1 {
		return speakerModel{}, dir, fmt.Errorf("sphinx: mllr_solve wrote %d classes for the channel, want 1", own.Classes)
	}
	if err := own.checkStreams(streams); err != nil {
		return speakerModel{}, dir, fmt.Errorf("sphinx: the channel's MLLR transform does not fit the model: %w", err)
	}
	if base == nil {
		base = identityMLLR(streams)
	}
	blended := blendMLLR(own, base, s.weight)
	var counts *gaussianCounts
	if s.variancePrior >= 0 || s.classes > 1 {
		if counts, err = readGaussianCounts(filepath.Join(accum, "gauden_counts")); err != nil {
			return speakerModel{}, dir, fmt.Errorf("sphinx: reading bw's statistics: %w", err)
		}
	}
	model := speakerModel{path: filepath.Join(dir, "blended.mllr")}
	if s.variancePrior >= 0 {
		h, _, err := varianceScale(blended, s.means, s.vars, counts, s.variancePrior)
		if err != nil {
			return speakerModel{}, dir, fmt.Errorf("sphinx: %w", err)
		}
		blended.setVarianceScale(h)
		model.scale = meanScale(h)
	}
	if err := os.WriteFile(model.path, blended.Format(), 0o600); err != nil {
		return speakerModel{}, dir, err
	}
	model.decodePath = model.path
	if s.classes > 1 {
		model.dir, model.counts, model.blended = dir, counts, blended
	}
	return model, dir, nil
}

// withClasses gives the model a transform per class of Gaussians
// (mllrclass.go) from the statistics its round kept; a model without them
// (one class, or no adaptation) is left as it is.
func (s *speakerAdapter) withClasses(m *speakerModel, streams []int) error {
	if m.counts == nil {
		return nil
	}
	moved, frames, err := classMeans(s.means, s.vars, m.counts, s.class, s.classes, m.blended, s.classPrior)
	if err != nil {
		return fmt.Errorf("sphinx: %w", err)
	}
	decode := identityMLLR(streams)
	scale := m.scale
	if s.variancePrior >= 0 {
		h, _, err := varianceScaleAround(moved, s.vars, m.counts, s.variancePrior)
		if err != nil {
			return fmt.Errorf("sphinx: %w", err)
		}
		decode.setVarianceScale(h)
		scale = meanScale(h)
	}
	means, decodePath := filepath.Join(m.dir, "means"), filepath.Join(m.dir, "classes.mllr")
	if err := WriteGaussianParams(means, moved); err != nil {
		return err
	}
	if err := os.WriteFile(decodePath, decode.Format(), 0o600); err != nil {
		return err
	}
	m.means, m.decodePath, m.scale = means, decodePath, scale
	for _, f := range frames {
		m.classFrames = append(m.classFrames, math.Round(f))
	}
	return nil
}

// meanScale is each stream's mean variance scale, to two decimals (for the
// debug log).
func meanScale(h [][]float64) []float64 {
	var out []float64
	for _, row := range h {
		var sum float64
		for _, v := range row {
			sum += v
		}
		out = append(out, math.Round(100*sum/float64(len(row)))/100)
	}
	return out
}

// chooseWarp returns which candidate's features the channel's first-pass
// words align to best (warp.go), aligned with the transform at alignPath, and
// each candidate's log-likelihood per frame. candidates[0] are the regions'
// unwarped features with the first pass's words; each other candidate holds
// the same regions and words with the features of a warped front end. A
// channel with too few words to adapt to keeps candidate 0.
func (s *speakerAdapter) chooseWarp(ctx context.Context, candidates [][]regionPass, alignPath string, dim int) (int, []float64, error) {
	if wordCount(candidates[0]) < speakerMinWords || len(candidates) < 2 {
		return 0, nil, nil
	}
	dir, accum, err := s.workDir("warp")
	defer os.RemoveAll(dir)
	if err != nil {
		return 0, nil, err
	}
	set := alignmentSet{dir: dir}
	ids := make([][]string, len(candidates))
	for k, passes := range candidates {
		for i, p := range passes {
			for j, u := range alignmentUtterances(p, s.minPosterior, dim) {
				id := warpUtteranceID(k, i, j)
				if err := set.add(id, u); err != nil {
					return 0, nil, err
				}
				ids[k] = append(ids[k], id)
			}
		}
	}
	if set.n == 0 {
		return 0, nil, nil
	}
	ctlPath, lsnPath, dictPath, err := set.write(s.dict)
	if err != nil {
		return 0, nil, err
	}
	scores, err := AlignmentScores(ctx, s.tools, s.model, dictPath, ctlPath, lsnPath, dir, accum, alignPath, filepath.Join(dir, "bw.log"))
	if err != nil {
		return 0, nil, err
	}
	best, perFrame := bestWarp(scores, ids, s.warpMargin)
	return best, perFrame, nil
}

// workDir makes a directory of its own for one bw run (named kind and a
// sequence number) with the accum directory bw writes its statistics to.
func (s *speakerAdapter) workDir(kind string) (dir, accum string, err error) {
	dir = filepath.Join(s.dir, fmt.Sprintf("%s-%d", kind, s.seq.Add(1)))
	accum = filepath.Join(dir, "accum")
	return dir, accum, os.MkdirAll(accum, 0o700)
}

// wordCount is the number of words in the passes.
func wordCount(passes []regionPass) int {
	n := 0
	for _, p := range passes {
		n += len(p.words)
	}
	return n
}

// alignmentSet writes utterances for bw: each one's features in dir, its id
// in the control file and its words in the transcription.
type alignmentSet struct {
	dir      string
	ctl, lsn strings.Builder
	words    []string
	n        int
}

func (a *alignmentSet) add(id string, u alignmentUtterance) error {
	if err := WriteMFC(filepath.Join(a.dir, id+".mfc"), u.cep); err != nil {
		return err
	}
	fmt.Fprintln(&a.ctl, id)
	fmt.Fprintf(&a.lsn, "<s> %s </s> (%s)\n", strings.Join(u.words, " "), id)
	a.words = append(a.words, u.words...)
	a.n++
	return nil
}

// write writes the control file, the transcription and the entries of the
// pronouncing dictionary at pron its words need, and returns their paths.
func (a *alignmentSet) write(pron string) (ctl, lsn, dict string, err error) {
	ctl, lsn, dict = filepath.Join(a.dir, "fileids"), filepath.Join(a.dir, "transcription"), filepath.Join(a.dir, "dict")
	if err := os.WriteFile(ctl, []byte(a.ctl.String()), 0o600); err != nil {
		return "", "", "", err
	}
	if err := os.WriteFile(lsn, []byte(a.lsn.String()), 0o600); err != nil {
		return "", "", "", err
	}
	return ctl, lsn, dict, writePronunciations(pron, dict, a.words)
}

// alignmentUtterance is a stretch of a region's features with the words
// recognised in it.
type alignmentUtterance struct {
	cep   []float32
	words []string
}

// alignmentUtterances cuts a region into what speaker adaptation aligns: the
// whole region with all its words, or, with minPosterior above zero, each run
// of at least two consecutive words whose posteriors reach it, with their own
// frames and a few frames of margin (dim values a frame).
func alignmentUtterances(p regionPass, minPosterior float64, dim int) []alignmentUtterance {
	if len(p.words) == 0 || len(p.cep) == 0 {
		return nil
	}
	if minPosterior <= 0 {
		texts := make([]string, len(p.words))
		for j, w := range p.words {
			texts[j] = w.Text
		}
		return []alignmentUtterance{{cep: p.cep, words: texts}}
	}
	const margin = 5 // frames of context on each side of a run
	frames := len(p.cep) / dim
	var out []alignmentUtterance
	flush := func(run []word) {
		if len(run) < 2 {
			return
		}
		from := max(run[0].Start-margin, 0)
		to := min(run[len(run)-1].End+1+margin, frames)
		if to <= from {
			return
		}
		texts := make([]string, len(run))
		for j, w := range run {
			texts[j] = w.Text
		}
		out = append(out, alignmentUtterance{cep: p.cep[from*dim : to*dim], words: texts})
	}
	var run []word
	for _, w := range p.words {
		if w.Posterior >= minPosterior {
			run = append(run, w)
			continue
		}
		flush(run)
		run = nil
	}
	flush(run)
	return out
}

// confidentShare is the share of the passes' words heard with a posterior of
// at least minPosterior (1 when there are no words).
func confidentShare(passes []regionPass, minPosterior float64) float64 {
	n, confident := 0, 0
	for _, p := range passes {
		for _, w := range p.words {
			n++
			if w.Posterior >= minPosterior {
				confident++
			}
		}
	}
	if n == 0 {
		return 1
	}
	return float64(confident) / float64(n)
}
