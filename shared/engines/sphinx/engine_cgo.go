//go:build cgo

package sphinx

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <stdio.h>
#include <pocketsphinx.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/err.h>
#include <sphinxbase/ngram_model.h>

// The Go side reads and writes cepstra as float32.
#ifdef FIXED_POINT
#error "sphinxbase was built with FIXED_POINT: mfcc_t is not float32"
#endif
_Static_assert(sizeof(mfcc_t) == sizeof(float), "mfcc_t is not float32");

// cgo cannot call the variadic cmd_ln_init, so configurations are parsed from
// an argv array built in Go.
static cmd_ln_t *parse_ps_args(int argc, char **argv) {
	return cmd_ln_parse_r(NULL, ps_args(), argc, argv, 1);
}
static cmd_ln_t *parse_fe_args(int argc, char **argv) {
	return cmd_ln_parse_r(NULL, fe_get_args(), argc, argv, 1);
}

// The decoder holds one or two searches over one language model. The full one
// (forward tree, then flat lexicon, then best path) gives the words a
// transcript reports. With speaker adaptation a quick one sits beside it
// (forward tree and best path, without the flat-lexicon pass): it gives the
// first pass, whose words only choose which frames the speaker's transform is
// estimated on.
#define QUICK_SEARCH "quick"
// LINE_QUICK_SEARCH is the quick search with fewer HMMs kept active per
// frame, for the first pass of a channel with a line's noise floor
// (linesearch.go says why; built only when that setting is on).
#define LINE_QUICK_SEARCH "quick-line"

// add_quick_search builds a quick search over lm under name, keeping at most
// maxhmmpf HMMs active per frame (the decoder's -maxhmmpf when 0).
static int add_quick_search(ps_decoder_t *ps, const char *name, ngram_model_t *lm, long maxhmmpf) {
	cmd_ln_t *config = ps_get_config(ps);
	long fwdflat = cmd_ln_int_r(config, "-fwdflat");
	long full_maxhmmpf = cmd_ln_int_r(config, "-maxhmmpf");
	cmd_ln_set_int_r(config, "-fwdflat", 0);
	if (maxhmmpf > 0) cmd_ln_set_int_r(config, "-maxhmmpf", maxhmmpf);
	int rc = ps_set_lm(ps, name, lm);
	cmd_ln_set_int_r(config, "-fwdflat", fwdflat);
	cmd_ln_set_int_r(config, "-maxhmmpf", full_maxhmmpf);
	return rc;
}

// set_searches makes lm the decoder's full search under name, with the quick
// search beside it when quick is set (and the line's quick search when
// line_maxhmmpf is above 0), and activates the full one. The quick searches
// are built first: building an n-gram search without the flat-lexicon pass
// fixes the size of the acoustic model's feature buffer, which the full
// search's second pass needs to grow, and building the full search after them
// lets it grow again.
static int set_searches(ps_decoder_t *ps, const char *name, ngram_model_t *lm, int quick, long quick_maxhmmpf, long line_maxhmmpf) {
	if (quick) {
		if (add_quick_search(ps, QUICK_SEARCH, lm, quick_maxhmmpf) < 0) return -1;
		if (line_maxhmmpf > 0 && add_quick_search(ps, LINE_QUICK_SEARCH, lm, line_maxhmmpf) < 0) return -4;
	}
	if (ps_set_lm(ps, name, lm) < 0) return -2;
	return ps_set_search(ps, name) < 0 ? -3 : 0;
}

// mix_lm interpolates the decoder's stock LM with a domain LM (domain_path ""
// for the stock LM alone, search "stock") and makes the mix the active search
// ("mixed"). Each model has exactly one owner (the set) and the searches hold
// their own references to it. *mix is the set (NULL without a domain LM): each
// search wraps the LM it is given in a set of its own, so the set is not what
// ps_get_lm returns, and it stays alive as long as the searches do.
static int mix_lm(ps_decoder_t *ps, const char *stock_path, const char *domain_path, float domain_weight, int quick, long quick_maxhmmpf, long line_maxhmmpf, ngram_model_t **mix) {
	*mix = NULL;
	cmd_ln_t *config = ps_get_config(ps);
	logmath_t *lmath = ps_get_logmath(ps);
	ngram_model_t *stock = ngram_model_read(config, stock_path, NGRAM_AUTO, lmath);
	if (stock == NULL) return -1;
	if (domain_path[0] == '\0') {
		int rc = set_searches(ps, "stock", stock, quick, quick_maxhmmpf, line_maxhmmpf);
		ngram_model_free(stock);
		return rc < 0 ? rc - 10 : 0;
	}
	ngram_model_t *models[2] = {stock, NULL};
	models[1] = ngram_model_read(config, domain_path, NGRAM_ARPA, lmath);
	if (models[1] == NULL) { ngram_model_free(models[0]); return -2; }
	char *names[2] = {"stock", "domain"};
	float32 weights[2] = {1.0f - domain_weight, domain_weight};
	ngram_model_t *set = ngram_model_set_init(config, models, names, weights, 2);
	if (set == NULL) { ngram_model_free(models[0]); ngram_model_free(models[1]); return -3; }
	int rc = set_searches(ps, "mixed", set, quick, quick_maxhmmpf, line_maxhmmpf);
	if (rc == 0) *mix = set;
	ngram_model_free(set);
	return rc < 0 ? rc - 10 : 0;
}

// Every utterance is a stream of its own. The front end's noise removal
// tracks the noise floor from frame to frame and keeps its estimate from one
// utterance to the next until a stream starts; carried over, it made a
// region's features depend on whatever the pooled decoder heard before (the
// previous region, or another call), so the same audio could come out as
// different words. Started afresh, the estimate begins from the region's own
// first frames, as it did for each recording the acoustic model was trained
// on. The decoded front end now runs without noise removal (Config.NoiseRemoval),
// but the detector's front end and Config.NoiseRemoval itself still keep such
// state, and a fresh stream costs nothing.

// decode_utt recognises one utterance given whole (so batch CMN sees all of it).
static int decode_utt(ps_decoder_t *ps, const int16 *samples, size_t n) {
	if (ps_start_stream(ps) < 0) return -1;
	if (ps_start_utt(ps) < 0) return -1;
	if (ps_process_raw(ps, samples, n, FALSE, TRUE) < 0) { ps_end_utt(ps); return -2; }
	return ps_end_utt(ps);
}

// utt_cepstra computes one utterance's cepstra with the decoder's own front
// end, exactly as ps_process_raw would (same parameters: the model's
// feat.params), so they can be transformed before decode_cep. The frames are
// one contiguous block (ckd_calloc_2d); the caller frees them with free_cep.
static mfcc_t **fe_cepstra(fe_t *fe, const int16 *samples, size_t n, int *out_nfr);
static mfcc_t **utt_cepstra(ps_decoder_t *ps, const int16 *samples, size_t n, int *out_nfr) {
	if (ps_start_stream(ps) < 0) return NULL;
	return fe_cepstra(ps_get_fe(ps), samples, n, out_nfr);
}

// fe_cepstra computes one utterance's cepstra with fe, as a stream of its own.
static mfcc_t **fe_cepstra(fe_t *fe, const int16 *samples, size_t n, int *out_nfr) {
	const int16 *p = samples;
	size_t left = n;
	int32 nfr = 0, ntail = 0;
	fe_start_stream(fe);
	fe_start_utt(fe);
	if (fe_process_frames(fe, NULL, &left, NULL, &nfr, NULL) < 0) return NULL;
	mfcc_t **cep = (mfcc_t **)ckd_calloc_2d(nfr + 1, fe_get_output_size(fe), sizeof(mfcc_t));
	left = n;
	if (fe_process_frames(fe, &p, &left, cep, &nfr, NULL) < 0) { ckd_free_2d((void **)cep); return NULL; }
	fe_end_utt(fe, cep[nfr], &ntail);
	*out_nfr = nfr + ntail;
	return cep;
}
static int cep_dim(ps_decoder_t *ps) { return fe_get_output_size(ps_get_fe(ps)); }

// derived_fe makes a front end with every parameter of the decoder's own (the
// model's feat.params and the decoder's arguments) but two: with params its
// frequency warp is inverse_linear with those parameters, which moves the mel
// filters so that the spectrum of a frequency f is analysed as f divided by
// the factor (NULL keeps the decoder's, none); and its noise removal is
// remove_noise (1 on, 0 off, -1 the decoder's). The front end keeps its own
// reference to its configuration.
static fe_t *derived_fe(ps_decoder_t *ps, const char *params, int remove_noise) {
	cmd_ln_t *src = ps_get_config(ps);
	cmd_ln_t *cfg = cmd_ln_parse_r(NULL, fe_get_args(), 0, NULL, FALSE);
	if (cfg == NULL) return NULL;
	for (const arg_t *a = fe_get_args(); a->name != NULL; a++) {
		if (!cmd_ln_exists_r(src, a->name)) continue;
		anytype_t *v = cmd_ln_access_r(src, a->name);
		if (v == NULL) continue;
		switch (a->type & ~ARG_REQUIRED) {
		case ARG_INTEGER:
		case ARG_BOOLEAN:
			cmd_ln_set_int_r(cfg, a->name, v->i);
			break;
		case ARG_FLOATING:
			cmd_ln_set_float_r(cfg, a->name, v->fl);
			break;
		case ARG_STRING:
			cmd_ln_set_str_r(cfg, a->name, (const char *)v->ptr);
			break;
		}
	}
	if (params != NULL) {
		cmd_ln_set_str_r(cfg, "-warp_type", "inverse_linear");
		cmd_ln_set_str_r(cfg, "-warp_params", params);
	}
	if (remove_noise >= 0) cmd_ln_set_int_r(cfg, "-remove_noise", remove_noise);
	fe_t *fe = fe_init_auto_r(cfg);
	cmd_ln_free_r(cfg);
	return fe;
}

// decode_cep recognises one utterance given whole as cepstra.
static int decode_cep(ps_decoder_t *ps, mfcc_t **cep, int nfr) {
	if (ps_start_utt(ps) < 0) return -1;
	if (ps_process_cep(ps, cep, nfr, FALSE, TRUE) < 0) { ps_end_utt(ps); return -2; }
	return ps_end_utt(ps);
}

// vad_step feeds samples to the front end and returns the VAD state of the last
// frame it computed (1 speech, 0 silence). The front end's out_frameidx is not
// a stream index in this sphinxbase, so the caller counts frames itself.
static int vad_step(fe_t *fe, const int16 *samples, size_t n, mfcc_t **buf, int cap) {
	const int16 *p = samples;
	size_t left = n;
	int32 nframes = cap;
	int32 idx = -1;
	if (fe_process_frames(fe, &p, &left, buf, &nframes, &idx) < 0) return -1;
	return fe_get_vad_state(fe);
}

// set_mllr reads an MLLR transform and applies it to the decoder's Gaussians.
// PocketSphinx reloads the means and variances from the model files before
// transforming them, so applying the identity transform undoes a transform.
// The decoder takes ownership of the transform.
//
// means, when not NULL, is the means file PocketSphinx reloads from: the
// model's own or means moved by the engine (mllrclass.go), which the
// transform then acts on.
static int set_mllr(ps_decoder_t *ps, const char *means, const char *path) {
	if (means != NULL) cmd_ln_set_str_r(ps_get_config(ps), "_mean", means);
	ps_mllr_t *m = ps_mllr_read(path);
	if (m == NULL) return -1;
	if (ps_update_mllr(ps, m) == NULL) return -2;
	return 0;
}

static void input_size(fe_t *fe, int *shift, int *size) { fe_get_input_size(fe, shift, size); }

static mfcc_t **alloc_cep(int n, int size) {
	return (mfcc_t **)ckd_calloc_2d(n, size, sizeof(mfcc_t));
}
static void free_cep(mfcc_t **c) { ckd_free_2d((void **)c); }
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

var quietOnce sync.Once

// quiet turns off the libraries' logging to stderr, which is verbose and would
// drown the service's structured logs.
func quiet() { quietOnce.Do(func() { C.err_set_logfp(nil) }) }

func cArgs(args []string) (**C.char, func()) {
	argv := C.malloc(C.size_t(len(args)) * C.size_t(unsafe.Sizeof(uintptr(0))))
	list := unsafe.Slice((**C.char)(argv), len(args))
	for i, a := range args {
		list[i] = C.CString(a)
	}
	return (**C.char)(argv), func() {
		for _, p := range list {
			C.free(unsafe.Pointer(p))
		}
		C.free(argv)
	}
}

// decoder is one PocketSphinx decoder; it serves one utterance at a time.
type decoder struct {
	ps *C.ps_decoder_t
	// mllr is the path of the MLLR transform applied to the model, "" for none.
	mllr string
	// means is the means file the transform acts on, "" for the model's
	// own; stockMeans is the model's own (the decoder's -mean at start).
	means, stockMeans string
	// mix is the stock and domain LMs' interpolated set every search scores
	// with (nil without a domain LM; lmmix_cgo.go re-weights it).
	mix *C.ngram_model_t
	// lineQuick says the decoder has the line's quick search.
	lineQuick bool
	// warps are front ends like the decoder's own with their frequencies
	// warped, one per factor speaker adaptation tries (warp.go).
	warps []warpedFrontEnd
	// denoised is a front end like the decoder's own with noise removal on,
	// for noisy channels (noisegate.go); nil when the decoder has none.
	denoised *C.fe_t
}

// warpedFrontEnd is a front end whose mel filters are warped by factor;
// denoised is the same with noise removal on (nil when the decoder has no
// denoised front end).
type warpedFrontEnd struct {
	factor   float64
	fe       *C.fe_t
	denoised *C.fe_t
}

// frontEndInit serialises building front ends. sphinxbase keeps the warp's
// parameters in static variables that each front end reads while its mel
// filters are built, so two built at once could take each other's warp.
// warpInits counts the warped ones built (see addWarp).
var (
	frontEndInit sync.Mutex
	warpInits    int
)

// addWarp gives the decoder a front end warped by factor.
func (d *decoder) addWarp(factor float64) error {
	if !(factor >= 0.5 && factor <= 2) {
		return fmt.Errorf("sphinx: frequency warp factor %v is outside 0.5..2", factor)
	}
	frontEndInit.Lock()
	defer frontEndInit.Unlock()
	// sphinxbase skips parsing warp parameters equal to the last ones it
	// parsed, even when a front end without a warp was built in between and
	// marked the warp neutral. A run of trailing spaces, which its parser
	// ignores, makes each string differ from the one parsed before it.
	warpInits++
	params := C.CString(fmt.Sprintf("%g%s", factor, strings.Repeat(" ", warpInits%2+1)))
	defer C.free(unsafe.Pointer(params))
	w := warpedFrontEnd{factor: factor, fe: C.derived_fe(d.ps, params, -1)}
	if w.fe == nil {
		return fmt.Errorf("sphinx: the front end warped by %v failed to initialise", factor)
	}
	if d.denoised != nil {
		// Built straight after w.fe from the same string: sphinxbase skips
		// parsing it, and the warp it parsed for w.fe still stands, as no
		// unwarped front end was built in between (the lock is held).
		if w.denoised = C.derived_fe(d.ps, params, 1); w.denoised == nil {
			C.fe_free(w.fe)
			return fmt.Errorf("sphinx: the front end warped by %v with noise removal failed to initialise", factor)
		}
	}
	d.warps = append(d.warps, w)
	return nil
}

// addDenoised gives the decoder a front end like its own with noise removal
// on; call it before addWarp, so that each warp gets one too.
func (d *decoder) addDenoised() error {
	if len(d.warps) > 0 {
		return errors.New("sphinx: the denoised front end is added before the warped ones")
	}
	frontEndInit.Lock()
	defer frontEndInit.Unlock()
	if d.denoised = C.derived_fe(d.ps, nil, 1); d.denoised == nil {
		return errors.New("sphinx: the front end with noise removal failed to initialise")
	}
	return nil
}

// warpedCepstra computes the cepstra of one utterance with the decoder's i-th
// warped front end (its denoised copy when denoise is set), as cepstra does
// with its own.
func (d *decoder) warpedCepstra(i int, samples []int16, denoise bool) ([]float32, error) {
	if denoise {
		return feCepstra(d.warps[i].denoised, samples)
	}
	return feCepstra(d.warps[i].fe, samples)
}

// denoisedCepstra computes the cepstra of one utterance with the decoder's
// front end with noise removal on (addDenoised), as cepstra does with its own.
func (d *decoder) denoisedCepstra(samples []int16) ([]float32, error) {
	return feCepstra(d.denoised, samples)
}

// newDecoder loads a decoder over the stock LM interpolated with the domain LM
// (the stock LM alone when domainLM is "" or its weight is 0), with the quick
// search beside the full one when quick is set, keeping at most quickMaxHMMs
// HMMs active per frame (0: the decoder's -maxhmmpf), and the line's quick
// search beside them when lineMaxHMMs is above 0.
func newDecoder(args []string, stockLM, domainLM string, domainWeight float64, quick bool, quickMaxHMMs, lineMaxHMMs int) (*decoder, error) {
	quiet()
	argv, free := cArgs(args)
	defer free()
	cfg := C.parse_ps_args(C.int(len(args)), argv)
	if cfg == nil {
		return nil, fmt.Errorf("sphinx: invalid decoder arguments %q", args)
	}
	frontEndInit.Lock()
	ps := C.ps_init(cfg)
	frontEndInit.Unlock()
	C.cmd_ln_free_r(cfg) // ps_init retains its own reference
	if ps == nil {
		return nil, errors.New("sphinx: decoder failed to initialise (acoustic model or dictionary missing? install pocketsphinx-en-us)")
	}
	d := &decoder{ps: ps}
	mean := C.CString("_mean")
	defer C.free(unsafe.Pointer(mean))
	if p := C.cmd_ln_str_r(C.ps_get_config(ps), mean); p != nil {
		d.stockMeans = C.GoString(p)
	}
	if domainWeight <= 0 {
		domainLM = ""
	}
	q := C.int(0)
	if quick {
		q = 1
	}
	cs, cd := C.CString(stockLM), C.CString(domainLM)
	defer C.free(unsafe.Pointer(cs))
	defer C.free(unsafe.Pointer(cd))
	if !quick {
		lineMaxHMMs = 0
	}
	if rc := C.mix_lm(ps, cs, cd, C.float(domainWeight), q, C.long(quickMaxHMMs), C.long(lineMaxHMMs), &d.mix); rc < 0 {
		d.close()
		return nil, fmt.Errorf("sphinx: building the decoder's searches failed (step %d)", int(rc))
	}
	d.lineQuick = lineMaxHMMs > 0
	return d, nil
}

// activeSearch names the search the decoder decodes with.
func (d *decoder) activeSearch() string {
	name := C.ps_get_search(d.ps)
	if name == nil {
		return ""
	}
	return C.GoString(name)
}

// useSearch makes the named search the one the decoder decodes with.
func (d *decoder) useSearch(name string) error {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	if C.ps_set_search(d.ps, cs) < 0 {
		return fmt.Errorf("sphinx: the decoder has no search %q", name)
	}
	return nil
}

func (d *decoder) close() {
	for _, w := range d.warps {
		C.fe_free(w.fe)
		if w.denoised != nil {
			C.fe_free(w.denoised)
		}
	}
	d.warps = nil
	if d.denoised != nil {
		C.fe_free(d.denoised)
		d.denoised = nil
	}
	if d.ps != nil {
		C.ps_free(d.ps)
		d.ps = nil
	}
}

// setMLLR applies the MLLR transform in the file at path (the identity
// transform at identity when path is "") to the model's own means, unless it
// is already applied.
func (d *decoder) setMLLR(path, identity string) error {
	return d.setModel("", path, identity)
}

// setModel applies the MLLR transform in the file at path (the identity
// transform at identity when path is "") to the means in the file at means
// ("" for the model's own), unless they are already applied.
func (d *decoder) setModel(means, path, identity string) error {
	if path == d.mllr && means == d.means {
		return nil
	}
	file := path
	if file == "" {
		file = identity
	}
	meansFile := means
	if meansFile == "" {
		meansFile = d.stockMeans
	}
	if meansFile == "" {
		return errors.New("sphinx: the decoder's configuration names no means file")
	}
	cs, cm := C.CString(file), C.CString(meansFile)
	defer C.free(unsafe.Pointer(cs))
	defer C.free(unsafe.Pointer(cm))
	if rc := C.set_mllr(d.ps, cm, cs); rc < 0 {
		return fmt.Errorf("sphinx: applying the MLLR transform %s failed (%d)", file, int(rc))
	}
	d.mllr, d.means = path, means
	return nil
}

// word is a recognised word with its frame span (framesPerSecond), relative
// to the start of the utterance, and its posterior probability in the
// decoder's lattice (0..1).
type word struct {
	Text       string
	Start, End int
	Posterior  float64
}

// decode recognises one utterance of 16 kHz audio and returns its words with
// fillers (<s>, </s>, <sil>, [NOISE], ++...++) removed and pronunciation variants
// such as "read(2)" folded into the word.
func (d *decoder) decode(samples []int16) ([]word, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	if rc := C.decode_utt(d.ps, (*C.int16)(unsafe.Pointer(&samples[0])), C.size_t(len(samples))); rc < 0 {
		return nil, fmt.Errorf("sphinx: decoding failed (%d)", int(rc))
	}
	return d.words(), nil
}

// cepDim is the length of the decoder's cepstral vectors.
func (d *decoder) cepDim() int { return int(C.cep_dim(d.ps)) }

// cepstra computes the decoder front end's cepstra of one utterance of 16 kHz
// audio: frames of cepDim values, one after the other. Like decode, it starts
// a stream of its own, so the frames depend on these samples alone.
func (d *decoder) cepstra(samples []int16) ([]float32, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	var nfr C.int
	cep := C.utt_cepstra(d.ps, (*C.int16)(unsafe.Pointer(&samples[0])), C.size_t(len(samples)), &nfr)
	return copyCepstra(cep, nfr, d.cepDim())
}

// feCepstra computes the cepstra of one utterance with fe, as a stream of
// its own.
func feCepstra(fe *C.fe_t, samples []int16) ([]float32, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	var nfr C.int
	cep := C.fe_cepstra(fe, (*C.int16)(unsafe.Pointer(&samples[0])), C.size_t(len(samples)), &nfr)
	return copyCepstra(cep, nfr, int(C.fe_get_output_size(fe)))
}

// copyCepstra copies nfr frames of dim values from C and frees them.
func copyCepstra(cep **C.mfcc_t, nfr C.int, dim int) ([]float32, error) {
	if cep == nil {
		return nil, errors.New("sphinx: front end failed")
	}
	defer C.free_cep(cep)
	n := int(nfr) * dim
	out := make([]float32, n)
	if n > 0 {
		copy(out, unsafe.Slice((*float32)(unsafe.Pointer(*cep)), n))
	}
	return out, nil
}

// decodeCepstra recognises one utterance given as cepstra (frames of cepDim
// values); the words are as decode returns them.
func (d *decoder) decodeCepstra(cep []float32) ([]word, error) {
	dim := d.cepDim()
	nfr := len(cep) / dim
	if nfr == 0 {
		return nil, nil
	}
	buf := C.alloc_cep(C.int(nfr), C.int(dim))
	defer C.free_cep(buf)
	copy(unsafe.Slice((*float32)(unsafe.Pointer(*buf)), nfr*dim), cep)
	if rc := C.decode_cep(d.ps, buf, C.int(nfr)); rc < 0 {
		return nil, fmt.Errorf("sphinx: decoding failed (%d)", int(rc))
	}
	return d.words(), nil
}

// words reads the last utterance's words from the decoder.
func (d *decoder) words() []word {
	var words []word
	for seg := C.ps_seg_iter(d.ps); seg != nil; seg = C.ps_seg_next(seg) {
		w := C.GoString(C.ps_seg_word(seg))
		if isFiller(w) {
			continue
		}
		if i := strings.IndexByte(w, '('); i > 0 {
			w = w[:i]
		}
		var sf, ef C.int
		C.ps_seg_frames(seg, &sf, &ef)
		// ps_seg_prob gives the word's log posterior in the decoder's log base
		// (from the best-path lattice, which the decoder builds by default).
		var ascr, lscr, lback C.int32
		logPost := C.ps_seg_prob(seg, &ascr, &lscr, &lback)
		post := float64(C.logmath_exp(C.ps_get_logmath(d.ps), C.int(logPost)))
		words = append(words, word{Text: w, Start: int(sf), End: int(ef), Posterior: post})
	}
	return words
}

func isFiller(w string) bool {
	return w == "" || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "++")
}

// vad is a sphinxbase front end used only for its voice activity detector.
type vad struct {
	fe  *C.fe_t
	cep **C.mfcc_t
	cap int
}

func newVAD(threshold float64) (*vad, error) {
	quiet()
	args := []string{"-samprate", "16000", "-remove_silence", "yes",
		"-vad_threshold", fmt.Sprint(threshold),
		"-vad_prespeech", fmt.Sprint(vadPre), "-vad_postspeech", fmt.Sprint(vadPost), "-vad_startspeech", fmt.Sprint(vadStart),
		"-lowerf", "130", "-upperf", "6800", "-nfilt", "25", "-transform", "dct", "-lifter", "22"}
	argv, free := cArgs(args)
	defer free()
	cfg := C.parse_fe_args(C.int(len(args)), argv)
	if cfg == nil {
		return nil, errors.New("sphinx: invalid front-end arguments")
	}
	frontEndInit.Lock()
	fe := C.fe_init_auto_r(cfg)
	frontEndInit.Unlock()
	if fe == nil {
		return nil, errors.New("sphinx: front end failed to initialise")
	}
	const capFrames = 256
	v := &vad{fe: fe, cap: capFrames}
	v.cep = C.alloc_cep(C.int(capFrames), C.fe_get_output_size(fe))
	C.fe_start_stream(fe)
	C.fe_start_utt(fe)
	return v, nil
}

// feed processes one frame shift of 16 kHz samples and reports whether the
// front end's VAD is in speech after it.
func (v *vad) feed(samples []int16) (speech bool, err error) {
	if len(samples) == 0 {
		return false, nil
	}
	rc := C.vad_step(v.fe, (*C.int16)(unsafe.Pointer(&samples[0])), C.size_t(len(samples)), v.cep, C.int(v.cap))
	if rc < 0 {
		return false, errors.New("sphinx: front end failed")
	}
	return rc == 1, nil
}

// frameSize is the number of samples in one analysis window.
func (v *vad) frameSize() int {
	var shift, size C.int
	C.input_size(v.fe, &shift, &size)
	return int(size)
}

func (v *vad) close() {
	if v.fe != nil {
		C.free_cep(v.cep)
		C.fe_free(v.fe)
		v.fe = nil
	}
}
