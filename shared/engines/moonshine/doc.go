// Package moonshine recognises English speech with Moonshine tiny, a small
// encoder-decoder transformer (27M parameters, MIT licence) trained on tens
// of thousands of hours of real speech, run on the CPU through ONNX
// Runtime's C library.
//
// Why a second recogniser beside PocketSphinx: the embedded engine's
// acoustic model is CMU's 16 kHz model read through maps and transforms
// fitted on synthesised voices, and real voices at 8 kHz are where it fails
// (the bench's recorded real voice 27.8% clean and 38.9% through a line,
// LibriVox at 8 kHz 36.6%). No model trained for the band is served by the
// registries this project installs from; this one is, inside npm's
// @moonshine-ai/moonshine-js (the quantized ONNX export its browser build
// loads), with ONNX Runtime's library inside npm's onnxruntime-node and the
// token pieces inside npm's llama-tokenizer-js (Moonshine's vocabulary is
// LLaMA's). infra/scripts/install-speech-models.sh fetches the three
// tarballs, checks them against pinned integrities and lays out a model
// directory: encoder_model.onnx, decoder_model_merged.onnx, tokens.txt and
// libonnxruntime.so.1. Nothing is downloaded at run time.
//
// The model takes 16 kHz samples of one utterance (up to about 30 s; the
// sphinx engine's speech regions are cut at 30 s) and writes text with
// punctuation and casing, greedily, token by token, with the decoder's
// self-attention cache carried between steps (the "merged" decoder's cache
// branch). It gives no word times; each word's confidence is the product of
// its tokens' probabilities, which on the bench's dev words already reads
// near the share of such words that are right (0.96 of those at 0.9 and up).
// The sphinx engine decodes each speech region with both recognisers and
// combines their words (sphinx/combine.go).
package moonshine
