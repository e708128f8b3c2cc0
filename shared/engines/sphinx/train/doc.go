// Package train holds what builds the speech engine's data files and checks
// them, apart from the engine the service links (package sphinx): the
// narrowband feature map's least-squares fit (FeatureMapFitter, used by
// infra/bench/cmd/narrowbandmap), the word-confidence map's isotonic fit and
// the calibration tables that judge it (confidence.go, used by
// infra/bench/cmd/confidence) and the domain LM's training text from
// written dialogues with the list of evaluation sets it must never read
// (lmtext.go, used by infra/bench/cmd/lmtext and the benches' leak checks),
// and the acoustic model's Gaussians retrained for telephone-band features
// (retrain.go, narrowbandmap -model: a measurement, not shipped).
//
// It imports package sphinx for what the two share (FeatureMap, the text
// normalisation, the domain text); sphinx never imports it.
package train
