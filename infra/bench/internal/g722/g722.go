// Package g722 decodes ITU-T G.722 (64 kbit/s wideband ADPCM) to 16 kHz PCM
// through spandsp (Debian's libspandsp-dev). The bench reads recordings that
// Debian packages only at 16 kHz in G.722 (the Asterisk prompts'
// asterisk-core-sounds-*-g722); nothing the Lambdas link imports it.
package g722

/*
#cgo pkg-config: spandsp
#include <stdint.h>
#include <stdlib.h>
#include <spandsp.h>
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Rate is the sample rate of decoded G.722.
const Rate = 16000

// Decode decodes a 64 kbit/s G.722 stream (one byte per two 16 kHz samples)
// to 16 kHz mono PCM.
func Decode(data []byte) ([]int16, error) {
	if len(data) == 0 {
		return nil, nil
	}
	s := C.g722_decode_init(nil, 64000, 0)
	if s == nil {
		return nil, errors.New("g722: spandsp could not make a decoder")
	}
	defer C.g722_decode_free(s)
	out := make([]int16, 2*len(data))
	n := C.g722_decode(s, (*C.int16_t)(unsafe.Pointer(&out[0])), (*C.uint8_t)(unsafe.Pointer(&data[0])), C.int(len(data)))
	if n < 0 || int(n) > len(out) {
		return nil, errors.New("g722: spandsp decoded an impossible number of samples")
	}
	return out[:n], nil
}
