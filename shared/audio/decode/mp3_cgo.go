//go:build cgo

package decode

/*
#cgo pkg-config: libmpg123
#include <stdlib.h>
#include <string.h>
#include <mpg123.h>

// open_decoder makes a feed-mode handle that outputs signed 16-bit samples at the
// stream's own rate and channel count (libmpg123 otherwise may pick another
// encoding, and a format list with every rate keeps it from resampling).
static mpg123_handle *open_decoder(int *err) {
	mpg123_handle *mh = mpg123_new(NULL, err);
	if (mh == NULL) return NULL;
	mpg123_param(mh, MPG123_FLAGS, MPG123_QUIET, 0);
	mpg123_format_none(mh);
	const long *rates; size_t n;
	mpg123_rates(&rates, &n);
	for (size_t i = 0; i < n; i++)
		mpg123_format(mh, rates[i], MPG123_MONO | MPG123_STEREO, MPG123_ENC_SIGNED_16);
	*err = mpg123_open_feed(mh);
	if (*err != MPG123_OK) { mpg123_delete(mh); return NULL; }
	return mh;
}

static int get_format(mpg123_handle *mh, long *rate, int *channels) {
	int enc;
	return mpg123_getformat(mh, rate, channels, &enc);
}
*/
import "C"

import (
	"sync"
	"unsafe"
)

var mpg123Init sync.Once

// DecodeMP3 decodes MPEG-1/2/2.5 Layer III (and I/II) with libmpg123, keeping the
// stream's channel count and sample rate, with the codec delay trimmed so times
// in the decoded PCM line up with the original audio.
func DecodeMP3(data []byte) (*Audio, error) {
	mpg123Init.Do(func() { C.mpg123_init() })
	var cerr C.int
	mh := C.open_decoder(&cerr)
	if mh == nil {
		return nil, errorf("MP3 decoder could not start: %s", C.GoString(C.mpg123_plain_strerror(cerr)))
	}
	defer C.mpg123_delete(mh)

	// Input is fed in blocks and output drained between them, so libmpg123 never
	// holds a copy of the whole file.
	const feedBlock = 64 << 10
	const outBlock = 32 << 10
	in := (*C.uchar)(C.malloc(feedBlock))
	defer C.free(unsafe.Pointer(in))
	out := (*C.uchar)(C.malloc(outBlock))
	defer C.free(unsafe.Pointer(out))

	var (
		a         *Audio
		channels  int
		maxFrames int
	)
	drain := func() error {
		for {
			var done C.size_t
			rc := C.mpg123_read(mh, unsafe.Pointer(out), outBlock, &done)
			switch rc {
			case C.MPG123_NEW_FORMAT:
				var rate C.long
				var ch C.int
				C.get_format(mh, &rate, &ch)
				if a == nil {
					if err := checkShape(int(rate), int(ch)); err != nil {
						return err
					}
					channels = int(ch)
					a = &Audio{SampleRate: int(rate), Channels: make([][]int16, channels)}
					maxFrames = MaxSeconds * int(rate)
				} else if int(rate) != a.SampleRate || int(ch) != channels {
					return errorf("MP3 changes format mid-stream (%d Hz/%d ch to %d Hz/%d ch)", a.SampleRate, channels, int(rate), int(ch))
				}
				continue
			case C.MPG123_OK, C.MPG123_DONE, C.MPG123_NEED_MORE:
			default:
				// A broken frame in the middle is skipped by libmpg123's resync;
				// anything else ends decoding with what was decoded so far.
				if a == nil {
					return errorf("MP3 cannot be decoded: %s", C.GoString(C.mpg123_strerror(mh)))
				}
				return nil
			}
			if done > 0 && a != nil {
				samples := unsafe.Slice((*int16)(unsafe.Pointer(out)), int(done)/2)
				frames := len(samples) / channels
				if len(a.Channels[0])+frames > maxFrames {
					return errorf("audio is longer than %d hours", MaxSeconds/3600)
				}
				for c := 0; c < channels; c++ {
					ch := a.Channels[c]
					for i := 0; i < frames; i++ {
						ch = append(ch, samples[i*channels+c])
					}
					a.Channels[c] = ch
				}
			}
			if rc != C.MPG123_OK {
				return nil // NEED_MORE or DONE
			}
		}
	}
	for off := 0; off < len(data); off += feedBlock {
		n := min(feedBlock, len(data)-off)
		C.memcpy(unsafe.Pointer(in), unsafe.Pointer(&data[off]), C.size_t(n))
		if rc := C.mpg123_feed(mh, in, C.size_t(n)); rc != C.MPG123_OK {
			return nil, errorf("MP3 cannot be decoded: %s", C.GoString(C.mpg123_plain_strerror(rc)))
		}
		if err := drain(); err != nil {
			return nil, err
		}
	}
	if a == nil || len(a.Channels[0]) <= mp3Delay {
		return nil, errorf("MP3 contains no decodable audio frames")
	}
	for c := range a.Channels {
		// Copying down (not re-slicing) lets the caller's slice start at index 0
		// without pinning a larger array than it needs.
		n := copy(a.Channels[c], a.Channels[c][mp3Delay:])
		a.Channels[c] = a.Channels[c][:n:n]
	}
	return a, nil
}

// MP3Supported reports whether this build decodes MP3 (cgo with libmpg123).
func MP3Supported() bool { return true }
