//go:build cgo

package sphinx

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/ckd_alloc.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#define KEYTERMS_SEARCH "keyterms"

// release_freed_memory hands the C heap's free pages back to the system.
static void release_freed_memory(void) {
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

// in_dict reports whether word has a pronunciation in the decoder's dictionary.
static int in_dict(ps_decoder_t *ps, const char *word) {
	char *pron = ps_lookup_word(ps, word);
	if (pron == NULL) return 0;
	ckd_free(pron);
	return 1;
}

// keyterms_search builds the search "keyterms": the LM of the active search
// interpolated with the keyterm LM in kt_path at weight w, and activates it.
// The active LM joins the new set as one member, retained: the live search
// keeps its own reference. (A search wraps the LM it is given in a set of its
// own, so the stock/domain mix is a member of that member; re-weighting the
// mix, lmmix_cgo.go, reaches the keyterm search too.)
static int keyterms_search(ps_decoder_t *ps, const char *base_name, const char *kt_path, float w) {
	cmd_ln_t *config = ps_get_config(ps);
	ngram_model_t *base = ps_get_lm(ps, base_name);
	if (base == NULL) return -1;
	ngram_model_t *kt = ngram_model_read(config, kt_path, NGRAM_ARPA, ps_get_logmath(ps));
	if (kt == NULL) return -2;
	ngram_model_t *models[2] = {ngram_model_retain(base), kt};
	char *names[2] = {"base", "keyterms"};
	float32 weights[2] = {1.0f - w, w};
	ngram_model_t *set = ngram_model_set_init(config, models, names, weights, 2);
	if (set == NULL) {
		ngram_model_free(models[0]);
		ngram_model_free(models[1]);
		return -3;
	}
	if (ps_set_lm(ps, KEYTERMS_SEARCH, set) < 0) { ngram_model_free(set); return -4; }
	ngram_model_free(set); // the search holds its own reference
	if (ps_set_search(ps, KEYTERMS_SEARCH) < 0) { ps_unset_search(ps, KEYTERMS_SEARCH); return -5; }
	return 0;
}

// keyterms_done returns to the search named base_name and frees the job's.
static int keyterms_done(ps_decoder_t *ps, const char *base_name) {
	int rc = ps_set_search(ps, base_name);
	ps_unset_search(ps, KEYTERMS_SEARCH);
	return rc;
}

static const char *active_search(ps_decoder_t *ps) { return ps_get_search(ps); }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"
)

// inDict reports whether the decoder's pronouncing dictionary has word.
func (d *decoder) inDict(word string) bool {
	cw := C.CString(word)
	defer C.free(unsafe.Pointer(cw))
	return C.in_dict(d.ps, cw) == 1
}

// boost switches the decoder to a search whose LM is its own interpolated
// with a keyterm model of sentences at weight w; the returned function
// switches back and frees it, and must run before the decoder serves another
// job.
func (d *decoder) boost(sentences []string, w float64) (restore func() error, err error) {
	f, err := os.CreateTemp("", "callscribe-keyterms-*.arpa")
	if err != nil {
		return nil, err
	}
	path := f.Name()
	defer os.Remove(path) // read into memory below
	err = BuildLM(strings.NewReader(strings.Join(sentences, "\n"))).WriteARPA(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("sphinx: writing the keyterm LM: %w", err)
	}
	active := C.active_search(d.ps)
	if active == nil {
		return nil, errors.New("sphinx: the decoder has no active search")
	}
	base := C.GoString(active)
	cbase, cpath := C.CString(base), C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if rc := C.keyterms_search(d.ps, cbase, cpath, C.float(w)); rc < 0 {
		C.free(unsafe.Pointer(cbase))
		return nil, fmt.Errorf("sphinx: building the keyterm search failed (step %d)", int(rc))
	}
	return func() error {
		defer C.free(unsafe.Pointer(cbase))
		if rc := C.keyterms_done(d.ps, cbase); rc < 0 {
			return fmt.Errorf("sphinx: returning to search %q failed", base)
		}
		// The job's search (about 60 MiB) was allocated on whichever thread
		// the cgo calls ran on, so glibc kept it in that thread's malloc
		// arena when freed, and the next job's search, built on another
		// thread, took fresh memory: measured on six calls of the 8 kHz call
		// set with keyterms, peak RSS 390 MiB against 125 without keyterms,
		// 190 with a single arena. Trimming after each search gives the
		// freed pages back in every arena.
		C.release_freed_memory()
		return nil
	}, nil
}

// searchState returns the active search's name and whether a keyterm search
// exists (tests check that a job leaves none behind).
func (d *decoder) searchState() (active string, keytermSearch bool) {
	name := C.CString("keyterms")
	defer C.free(unsafe.Pointer(name))
	return C.GoString(C.active_search(d.ps)), C.ps_get_lm(d.ps, name) != nil
}
