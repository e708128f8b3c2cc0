package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/engines/sphinx/train"
)

// modelRetraining says how -model retrains the acoustic model's Gaussians
// for telephone-band features (train.Retrainer) instead of fitting a map.
type modelRetraining struct {
	// stock is the wideband acoustic model's directory.
	stock string
	// priorMLLR moves the stock means to the prior the retrained ones are
	// pulled towards (nil: the stock means).
	priorMLLR *sphinx.MLLR
	// prior is that pull in frames; varFloor the least share of its prior
	// a variance keeps.
	prior, varFloor float64
	// featureMap, when set, maps the telephone-band cepstra first (as the
	// engine does for a high voice), at full weight.
	featureMap *sphinx.FeatureMap
	// byDifference moves the stock Gaussians by the band's difference
	// instead of estimating them anew from the 8 kHz frames alone.
	byDifference bool
}

// retrain writes a copy of the stock model to dir whose means and variances
// are retrained on the readings' telephone-band features.
func (t *trainer) retrain(readings []reading, how modelRetraining, dir string) error {
	means, err := sphinx.ReadGaussianParams(filepath.Join(how.stock, "means"))
	if err != nil {
		return err
	}
	vars, err := sphinx.ReadGaussianParams(filepath.Join(how.stock, "variances"))
	if err != nil {
		return err
	}
	r, err := train.NewRetrainer(means, vars)
	if err != nil {
		return err
	}
	ctx := context.Background()
	var seconds float64
	for i, rd := range readings {
		wc, nc, dim, s, err := t.cepstraOf(ctx, i, rd)
		if err != nil {
			return err
		}
		if how.featureMap != nil {
			nc = how.featureMap.Apply(nc)
		}
		n := min(len(wc), len(nc)) / dim * dim
		r.Add(train.DecoderFeatures(wc[:n], dim), train.DecoderFeatures(nc[:n], dim))
		seconds += s
		if (i+1)%200 == 0 {
			fmt.Fprintf(os.Stderr, "narrowbandmap: %d readings retrained on (%d frames)\n", i+1, r.Frames())
		}
	}
	priorMeans := means
	if how.priorMLLR != nil {
		if priorMeans, err = means.TransformedMeans(how.priorMLLR); err != nil {
			return err
		}
	}
	var m *train.RetrainedModel
	if how.byDifference {
		m, err = r.ResultByDifference(priorMeans, how.prior)
	} else {
		m, err = r.Result(priorMeans, vars, how.prior, how.varFloor)
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"mdef", "sendump", "transition_matrices", "noisedict", "feat.params", "README"} {
		if err := sphinx.CopyFile(filepath.Join(how.stock, f), filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	if err := sphinx.WriteGaussianParams(filepath.Join(dir, "means"), m.Means); err != nil {
		return err
	}
	if err := sphinx.WriteGaussianParams(filepath.Join(dir, "variances"), m.Variances); err != nil {
		return err
	}
	fmt.Printf("narrowbandmap: retrained %s on %.0f s (%d frames); %d of %d Gaussians seen for a frame or more\n",
		dir, seconds, r.Frames(), m.Seen, m.Gaussians)
	return nil
}

// retrainingFrom reads -model's settings.
func retrainingFrom(priorMLLR string, prior, varFloor float64, mapped, voiceBand, byDifference bool) (modelRetraining, error) {
	how := modelRetraining{stock: filepath.Join(sphinx.DefaultModelDir, "en-us"), prior: prior, varFloor: varFloor, byDifference: byDifference}
	var err error
	switch priorMLLR {
	case "none":
	case "unmapped":
		how.priorMLLR, err = sphinx.BuiltinNarrowbandUnmappedMLLR()
	case "mapped":
		how.priorMLLR, err = sphinx.BuiltinNarrowbandMLLR()
	default:
		var b []byte
		if b, err = os.ReadFile(priorMLLR); err == nil {
			how.priorMLLR, err = sphinx.ParseMLLR(b)
		}
	}
	if err != nil {
		return how, err
	}
	if mapped {
		if voiceBand {
			how.featureMap, err = sphinx.BuiltinVoiceBandMap()
		} else {
			how.featureMap, err = sphinx.BuiltinNarrowbandMap()
		}
	}
	return how, err
}
