//go:build cgo

package sphinx

import (
	"fmt"
	"os"
	"path/filepath"
)

// narrowbandType is how one type of 8 kHz channel (mapped or not) is decoded
// before any speaker adaptation. A one-class transform is applied by the
// decoder to the model's own means (mllrPath, mllr). A transform with classes
// (narrowbandclass.go) is applied once, at start-up: model is SphinxTrain's
// copy of the acoustic model with its means moved by the classes, the
// decoder loads those means (meansPath) under the identity transform, and a
// speaker's alignments and transforms start from them. The zero value is the
// model as it is (wideband audio, or no narrowband transform).
type narrowbandType struct {
	mllrPath string
	mllr     *MLLR
	// meansPath, model and means are set with classes only.
	meansPath, model string
	means            *gaussianParams
	nClasses         int
}

// newNarrowbandType writes what the decoder needs for the transform m into
// dir (name tells the channel types apart): the transform itself, or, with
// classes, a SphinxTrain copy of the model at hmm with the moved means.
func newNarrowbandType(m *MLLR, hmm, dir, name string) (narrowbandType, error) {
	nb := narrowbandType{nClasses: m.Classes}
	if m.Classes == 1 {
		nb.mllr, nb.mllrPath = m, filepath.Join(dir, name+".mllr")
		if err := os.WriteFile(nb.mllrPath, m.Format(), 0o600); err != nil {
			return nb, fmt.Errorf("sphinx: writing the MLLR transform: %w", err)
		}
		return nb, nil
	}
	nb.model = filepath.Join(dir, "narrowband-"+name)
	if err := PrepareTrainingModel(hmm, nb.model); err != nil {
		return nb, fmt.Errorf("sphinx: preparing the model for the %s narrowband classes: %w", name, err)
	}
	var err error
	if nb.means, err = moveModelMeans(nb.model, m); err != nil {
		return nb, fmt.Errorf("sphinx: the %s narrowband MLLR transform's classes: %w", name, err)
	}
	nb.meansPath = filepath.Join(nb.model, "means")
	return nb, nil
}

// classes is the transform's class count, 0 for none (for the log).
func (nb narrowbandType) classes() int { return nb.nClasses }
