//go:build cgo

package sphinx

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <string.h>
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
// When the active search is the stock/domain mix ("mixed"), its two members
// join the new set directly (weights scaled by 1-w), so scoring stays one
// level of interpolation; otherwise the active LM joins as one member. The
// members are retained: the live search keeps its own references.
static int keyterms_search(ps_decoder_t *ps, const char *base_name, const char *kt_path, float w, float domain_w) {
	cmd_ln_t *config = ps_get_config(ps);
	ngram_model_t *base = ps_get_lm(ps, base_name);
	if (base == NULL) return -1;
	ngram_model_t *kt = ngram_model_read(config, kt_path, NGRAM_ARPA, ps_get_logmath(ps));
	if (kt == NULL) return -2;
	ngram_model_t *models[3];
	char *names[3];
	float32 weights[3];
	int n = 0;
	ngram_model_t *stock = NULL, *domain = NULL;
	if (strcmp(base_name, "mixed") == 0) {
		stock = ngram_model_set_lookup(base, "stock");
		domain = ngram_model_set_lookup(base, "domain");
	}
	if (stock != NULL && domain != NULL) {
		models[n] = ngram_model_retain(stock); names[n] = "stock"; weights[n] = (1.0f - domain_w) * (1.0f - w); n++;
		models[n] = ngram_model_retain(domain); names[n] = "domain"; weights[n] = domain_w * (1.0f - w); n++;
	} else {
		models[n] = ngram_model_retain(base); names[n] = "base"; weights[n] = 1.0f - w; n++;
	}
	models[n] = kt; names[n] = "keyterms"; weights[n] = w; n++;
	ngram_model_t *set = ngram_model_set_init(config, models, names, weights, n);
	if (set == NULL) {
		for (int i = 0; i < n; i++) ngram_model_free(models[i]);
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
// with a keyterm model of sentences at weight w (domainWeight is the live
// mix's domain share); the returned function switches back and frees it, and
// must run before the decoder serves another job.
func (d *decoder) boost(sentences []string, w, domainWeight float64) (restore func() error, err error) {
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
	if rc := C.keyterms_search(d.ps, cbase, cpath, C.float(w), C.float(max(domainWeight, 0))); rc < 0 {
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
