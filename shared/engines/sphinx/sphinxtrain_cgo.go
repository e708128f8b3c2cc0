//go:build cgo

package sphinx

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <sphinxbase/cmd_ln.h>

typedef struct bin_mdef_s bin_mdef_t;
bin_mdef_t *bin_mdef_read(cmd_ln_t *config, const char *filename);
int bin_mdef_write_text(bin_mdef_t *m, const char *filename);
int bin_mdef_free(bin_mdef_t *m);

static int mdef_to_text(const char *in, const char *out) {
	bin_mdef_t *m = bin_mdef_read(NULL, in);
	if (m == NULL) return -1;
	int rc = bin_mdef_write_text(m, out);
	bin_mdef_free(m);
	return rc;
}
*/
import "C"

import (
	"errors"
	"path/filepath"
	"unsafe"
)

// PrepareTrainingModel copies the acoustic model in src (an en-us directory)
// into dir in the form SphinxTrain reads: the model definition as text
// (PocketSphinx's own bin_mdef_write_text) and the mixture weights
// unquantised from the sendump; the rest as it is.
func PrepareTrainingModel(src, dir string) error {
	if err := prepareTrainingFiles(src, dir); err != nil {
		return err
	}
	in, out := C.CString(filepath.Join(src, "mdef")), C.CString(filepath.Join(dir, "mdef.txt"))
	defer C.free(unsafe.Pointer(in))
	defer C.free(unsafe.Pointer(out))
	if C.mdef_to_text(in, out) < 0 {
		return errors.New("sphinx: converting the model definition to text failed")
	}
	return nil
}
