package sphinx

import (
	"fmt"
	"os"
	"path/filepath"
)

// A channel type's narrowband transform (narrowband_mapped.mllr and
// narrowband_unmapped.mllr) may carry a transform per class of Gaussians. A
// telephone band does not act on every sound alike: it takes away the
// energy above 3.4 kHz, which is most of a fricative's and little of a
// vowel's, so one affine move of every mean leaves part of the mismatch in
// place. The classes are estimated offline from hours of narrowband speech
// (infra/bench/cmd/narrowbandadapt -classes), enough for each class, where a
// speaker's minute of speech only supports a few (mllrclass.go). PocketSphinx
// applies only a transform's first class, so the engine moves the means
// itself and the decoder loads them (decoder.setModel), as for a speaker's
// class transforms.
//
// The class count names the scheme, since the two the engine knows cannot be
// told apart otherwise: 1 is one transform for every Gaussian,
// phoneClassCount (3) the broad phonetic classes (silence, sonorants,
// obstruents) and the model's codebook count (42 for pocketsphinx-en-us) one
// class per base phone, whose Gaussians are that phone's codebook.

// Class schemes of narrowbandadapt -classes.
const (
	ClassesOne   = "one"
	ClassesBroad = "broad"
	ClassesPhone = "phone"
)

// gaussianClasses returns each Gaussian's class (per codebook·densities +
// density) for a transform of nClasses classes, nil for one class.
func gaussianClasses(nClasses int, means *gaussianParams, bases []string, filler []bool) ([]int, error) {
	switch nClasses {
	case 1:
		return nil, nil
	case phoneClassCount:
		return phoneClasses(means, bases, filler)
	case means.codebooks:
		if len(bases) != means.codebooks {
			return nil, fmt.Errorf("phone classes: the model has %d codebooks and %d base phones; want one codebook a phone (a phonetically tied model)", means.codebooks, len(bases))
		}
		out := make([]int, means.codebooks*means.densities)
		for i := range out {
			out[i] = i / means.densities
		}
		return out, nil
	}
	return nil, fmt.Errorf("class transforms: %d classes; the engine knows 1, %d (broad phonetic classes) and %d (one a base phone)", nClasses, phoneClassCount, means.codebooks)
}

// schemeClasses is the class count of a scheme for a model of codebooks
// codebooks.
func schemeClasses(scheme string, codebooks int) (int, error) {
	switch scheme {
	case ClassesOne:
		return 1, nil
	case ClassesBroad:
		return phoneClassCount, nil
	case ClassesPhone:
		return codebooks, nil
	}
	return 0, fmt.Errorf("class scheme %q: want %s, %s or %s", scheme, ClassesOne, ClassesBroad, ClassesPhone)
}

// ClassTransformFromStats estimates a transform per class of the scheme from
// bw's statistics in accum, collected on the model prepared in model
// (PrepareTrainingModel), each class pulled towards global (the one-class
// transform mllr_solve estimates from the same statistics) by priorFrames.
// It returns the transform and each class's frames.
func ClassTransformFromStats(model, accum string, global *MLLR, scheme string, priorFrames float64) (*MLLR, []float64, error) {
	means, err := readGaussianParams(filepath.Join(model, "means"))
	if err != nil {
		return nil, nil, err
	}
	vars, err := readGaussianParams(filepath.Join(model, "variances"))
	if err != nil {
		return nil, nil, err
	}
	counts, err := readGaussianCounts(filepath.Join(accum, "gauden_counts"))
	if err != nil {
		return nil, nil, err
	}
	bases, filler, err := readModelBasePhones(model)
	if err != nil {
		return nil, nil, err
	}
	n, err := schemeClasses(scheme, means.codebooks)
	if err != nil {
		return nil, nil, err
	}
	if n == 1 {
		return global, nil, nil
	}
	class, err := gaussianClasses(n, means, bases, filler)
	if err != nil {
		return nil, nil, err
	}
	return classTransform(means, vars, counts, class, n, global, priorFrames)
}

// readModelBasePhones reads the base phones of a model prepared for
// SphinxTrain (its mdef.txt).
func readModelBasePhones(model string) ([]string, []bool, error) {
	mdef, err := os.ReadFile(filepath.Join(model, "mdef.txt"))
	if err != nil {
		return nil, nil, err
	}
	return readBasePhones(mdef)
}

// moveModelMeans moves the means of a model prepared for SphinxTrain by a
// transform with classes, in place: the copy's means file then holds them,
// for the decoder to load and for bw and mllr_solve to start from.
func moveModelMeans(model string, m *MLLR) (*gaussianParams, error) {
	path := filepath.Join(model, "means")
	means, err := readGaussianParams(path)
	if err != nil {
		return nil, err
	}
	bases, filler, err := readModelBasePhones(model)
	if err != nil {
		return nil, err
	}
	class, err := gaussianClasses(m.Classes, means, bases, filler)
	if err != nil {
		return nil, err
	}
	moved, err := classTransformedMeans(m, means, class)
	if err != nil {
		return nil, err
	}
	return moved, writeGaussianParams(path, moved)
}
