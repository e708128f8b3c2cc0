package sphinx

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseMLLRRoundTrip(t *testing.T) {
	id := identityMLLR([]int{2, 3})
	b := append(id.Format(), "# trained on: nothing\n"...)
	m, err := ParseMLLR(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Classes != 1 || len(m.Streams) != 2 || m.Streams[1] != 3 || m.Note != "trained on: nothing" {
		t.Fatalf("parsed %+v", m)
	}
	// Stream 0 of length 2: A = I, then b = 0, then h = 1.
	want := []float64{1, 0, 0, 1, 0, 0, 1, 1}
	for i, v := range want {
		if m.Values[i] != v {
			t.Fatalf("value %d = %v, want %v (values %v)", i, m.Values[i], v, m.Values[:8])
		}
	}
	if !bytes.Equal(m.Format(), id.Format()) {
		t.Error("formatting the parsed transform changed it")
	}
}

func TestBuiltinNarrowbandMLLR(t *testing.T) {
	for name, load := range map[string]func() (*MLLR, error){
		"mapped": BuiltinNarrowbandMLLR, "unmapped": BuiltinNarrowbandUnmappedMLLR,
	} {
		m, err := load()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := m.checkStreams([]int{13, 13, 13}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Classes != 1 || !strings.Contains(m.Note, "narrowbandadapt") {
			t.Errorf("%s: classes %d, note %q", name, m.Classes, m.Note)
		}
		// Neither is the identity: each moves the means.
		if bytes.Equal(m.Format(), identityMLLR(m.Streams).Format()) {
			t.Errorf("%s: the built-in transform is the identity", name)
		}
	}
	mapped, _ := BuiltinNarrowbandMLLR()
	unmapped, _ := BuiltinNarrowbandUnmappedMLLR()
	if bytes.Equal(mapped.Format(), unmapped.Format()) {
		t.Error("the mapped and unmapped transforms are the same")
	}
}

func TestParseMLLRRejectsDamagedFiles(t *testing.T) {
	good := string(identityMLLR([]int{2}).Format())
	for name, text := range map[string]string{
		"empty":          "",
		"no streams":     "1\n",
		"zero classes":   "0\n1\n2\n1 0 0 1 0 0 1 1\n",
		"truncated":      strings.TrimSuffix(good, "1 1 \n"),
		"extra value":    good + "7\n",
		"not a number":   strings.Replace(good, "0", "x", 1),
		"non-finite":     strings.Replace(good, "0", "NaN", 1),
		"infinite":       strings.Replace(good, "0", "+Inf", 1),
		"bad stream len": "1\n1\n-2\n",
	} {
		if _, err := ParseMLLR([]byte(text)); err == nil {
			t.Errorf("%s: accepted %q", name, text)
		} else if !strings.HasPrefix(err.Error(), "mllr: ") {
			t.Errorf("%s: error %q does not say it is about the MLLR transform", name, err)
		}
	}
	m, err := ParseMLLR([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.checkStreams([]int{13, 13, 13}); err == nil {
		t.Error("a one-stream transform fits a three-stream model")
	}
}

// Blending a transform with the identity moves each value that share of the
// way, and the ends of the range give back the two transforms.
func TestBlendMLLR(t *testing.T) {
	id := identityMLLR([]int{2})
	own := &MLLR{Classes: 1, Streams: []int{2}, Values: []float64{2, 0, 0, 4, 1, -1, 3, 3}}
	got := blendMLLR(own, id, 0.25)
	want := []float64{1.25, 0, 0, 1.75, 0.25, -0.25, 1.5, 1.5}
	for i := range want {
		if got.Values[i] != want[i] {
			t.Fatalf("blend 0.25 = %v, want %v", got.Values, want)
		}
	}
	for w, m := range map[float64]*MLLR{0: id, 1: own} {
		b := blendMLLR(own, id, w)
		for i := range m.Values {
			if b.Values[i] != m.Values[i] {
				t.Errorf("blend %g = %v, want %v", w, b.Values, m.Values)
				break
			}
		}
	}
}
