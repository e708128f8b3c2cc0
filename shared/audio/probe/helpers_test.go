package probe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

const fixtureDir = "../../../testdata/audio"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("fixture %s: %v (regenerate with infra/scripts/make-audio-fixtures.sh)", name, err)
	}
	return b
}

func probeBytes(b []byte) (Info, error) { return Probe(bytes.NewReader(b), int64(len(b))) }

// wantCode fails unless err is a *callscribe.Error with the code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *callscribe.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *callscribe.Error %s", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%q), want %s", e.Code, e.Message, code)
	}
	if e.Message == "" {
		t.Fatalf("%s error without a message", code)
	}
}

// allocBytes reports the bytes allocated by one call of f: hostile size fields
// must not turn into allocations.
func allocBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// wavSpec describes a hand-built WAV file.
type wavSpec struct {
	tag        uint16 // format tag in 'fmt '
	channels   uint16
	rate       uint32
	bits       uint16
	blockAlign uint16 // 0 means channels*bits/8
	extensible bool   // write WAVE_FORMAT_EXTENSIBLE with sub-format tag
	guidTail   []byte // overrides the KSDATAFORMAT GUID tail (extensible only)
	fmtSize    uint32 // overrides the fmt chunk's declared size (body still as built)
	before     [][]byte
	dataClaim  uint32 // declared data size; 0 means len(data) unless zeroClaim
	zeroClaim  bool
	data       []byte // nil: no data chunk
	noFmt      bool
	dataFirst  bool
}

func chunk(id string, body []byte) []byte {
	c := make([]byte, 8, 8+len(body)+1)
	copy(c, id)
	binary.LittleEndian.PutUint32(c[4:], uint32(len(body)))
	c = append(c, body...)
	if len(body)%2 == 1 {
		c = append(c, 0)
	}
	return c
}

func buildWAV(s wavSpec) []byte {
	ba := s.blockAlign
	if ba == 0 {
		ba = s.channels * s.bits / 8
	}
	le := binary.LittleEndian
	fmtBody := make([]byte, 16, 40)
	tag := s.tag
	if s.extensible {
		tag = wavFormatExtensible
	}
	le.PutUint16(fmtBody[0:], tag)
	le.PutUint16(fmtBody[2:], s.channels)
	le.PutUint32(fmtBody[4:], s.rate)
	le.PutUint32(fmtBody[8:], s.rate*uint32(ba))
	le.PutUint16(fmtBody[12:], ba)
	le.PutUint16(fmtBody[14:], s.bits)
	if s.extensible {
		ext := make([]byte, 24)
		le.PutUint16(ext[0:], 22)
		le.PutUint16(ext[2:], s.bits)
		le.PutUint32(ext[4:], 0x3) // front left/right
		le.PutUint16(ext[8:], s.tag)
		tail := ksSubtypeTail[:]
		if s.guidTail != nil {
			tail = s.guidTail
		}
		copy(ext[10:], tail)
		fmtBody = append(fmtBody, ext...)
	}
	fmtChunk := chunk("fmt ", fmtBody)
	if s.fmtSize != 0 {
		le.PutUint32(fmtChunk[4:], s.fmtSize)
	}
	var dataChunk []byte
	if s.data != nil {
		dataChunk = chunk("data", s.data)
		claim := uint32(len(s.data))
		if s.dataClaim != 0 || s.zeroClaim {
			claim = s.dataClaim
		}
		le.PutUint32(dataChunk[4:], claim)
	}
	var body []byte
	body = append(body, "WAVE"...)
	for _, c := range s.before {
		body = append(body, c...)
	}
	if s.dataFirst {
		body = append(body, dataChunk...)
		dataChunk = nil
	}
	if !s.noFmt {
		body = append(body, fmtChunk...)
	}
	body = append(body, dataChunk...)
	out := append([]byte("RIFF\x00\x00\x00\x00"), body...)
	le.PutUint32(out[4:], uint32(len(body)))
	return out
}

// frames splits an MP3 byte stream that starts with a frame into its frames.
func frames(t testing.TB, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(b) >= 4 {
		f, ok := parseHeader(b)
		if !ok || f.size > len(b) {
			break
		}
		out = append(out, b[:f.size])
		b = b[f.size:]
	}
	if len(out) == 0 {
		t.Fatal("no frames")
	}
	return out
}
