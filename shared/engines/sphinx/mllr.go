package sphinx

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MLLR is a model-space MLLR transform of the acoustic model's Gaussian means
// (and variance scales), in the text form SphinxTrain's mllr_solve writes and
// PocketSphinx's -mllr reads: the class count, the stream count, then per
// stream its length and, per class, the matrix A, the offset b and the
// variance scale h. Each mean becomes A·mean + b.
type MLLR struct {
	Classes int
	// Streams holds each feature stream's vector length.
	Streams []int
	// Values is every number after the header, in file order.
	Values []float64
	// Note is the text of trailing # comment lines (what it was estimated on).
	Note string
}

// ParseMLLR reads and checks a transform: the counts must agree with the
// number of values that follow, and every value must be finite. A '#' starts
// a comment to the end of the line (PocketSphinx stops reading before it).
func ParseMLLR(b []byte) (*MLLR, error) {
	var (
		toks  []string
		notes []string
	)
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line, comment, found := strings.Cut(sc.Text(), "#")
		if found {
			notes = append(notes, strings.TrimSpace(comment))
		}
		toks = append(toks, strings.Fields(line)...)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mllr: %w", err)
	}
	at := 0
	integer := func(what string) (int, error) {
		if at >= len(toks) {
			return 0, fmt.Errorf("mllr: file ends before the %s", what)
		}
		n, err := strconv.Atoi(toks[at])
		if err != nil || n <= 0 || n > 1000 {
			return 0, fmt.Errorf("mllr: bad %s %q", what, toks[at])
		}
		at++
		return n, nil
	}
	m := &MLLR{Note: strings.Join(notes, " ")}
	var err error
	if m.Classes, err = integer("class count"); err != nil {
		return nil, err
	}
	nStreams, err := integer("stream count")
	if err != nil {
		return nil, err
	}
	for i := 0; i < nStreams; i++ {
		n, err := integer(fmt.Sprintf("length of stream %d", i))
		if err != nil {
			return nil, err
		}
		m.Streams = append(m.Streams, n)
		want := m.Classes * (n*n + 2*n)
		if len(toks)-at < want {
			return nil, fmt.Errorf("mllr: stream %d needs %d values, the file has %d left", i, want, len(toks)-at)
		}
		for _, t := range toks[at : at+want] {
			v, err := strconv.ParseFloat(t, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("mllr: stream %d: bad value %q", i, t)
			}
			m.Values = append(m.Values, v)
		}
		at += want
	}
	if at != len(toks) {
		return nil, fmt.Errorf("mllr: %d values after the last stream", len(toks)-at)
	}
	return m, nil
}

// checkStreams reports whether the transform fits a model whose feature
// streams have the given lengths.
func (m *MLLR) checkStreams(want []int) error {
	if len(m.Streams) != len(want) {
		return fmt.Errorf("mllr: %d feature streams, the model has %d", len(m.Streams), len(want))
	}
	for i := range want {
		if m.Streams[i] != want[i] {
			return fmt.Errorf("mllr: stream %d has length %d, the model's has %d", i, m.Streams[i], want[i])
		}
	}
	return nil
}

// Format writes the transform in the text form PocketSphinx reads.
func (m *MLLR) Format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d\n%d\n", m.Classes, len(m.Streams))
	at := 0
	for _, n := range m.Streams {
		fmt.Fprintf(&b, "%d\n", n)
		for c := 0; c < m.Classes; c++ {
			// A (n rows of n), then b and h (one row each).
			for row := 0; row < n+2; row++ {
				for k := 0; k < n; k++ {
					b.WriteString(strconv.FormatFloat(m.Values[at], 'g', -1, 64))
					b.WriteByte(' ')
					at++
				}
				b.WriteByte('\n')
			}
		}
	}
	return b.Bytes()
}

// identityMLLR is the transform that leaves a model with the given stream
// lengths as it is: A = I, b = 0, h = 1.
func identityMLLR(streams []int) *MLLR {
	m := &MLLR{Classes: 1, Streams: streams}
	for _, n := range streams {
		for row := 0; row < n+2; row++ {
			for k := 0; k < n; k++ {
				v := 0.0
				if row == k || row == n+1 {
					v = 1
				}
				m.Values = append(m.Values, v)
			}
		}
	}
	return m
}

// blendMLLR returns w·a + (1-w)·b, value by value (both one class over the
// same streams).
func blendMLLR(a, b *MLLR, w float64) *MLLR {
	out := &MLLR{Classes: 1, Streams: a.Streams, Values: make([]float64, len(a.Values))}
	for i := range a.Values {
		out.Values[i] = w*a.Values[i] + (1-w)*b.Values[i]
	}
	return out
}
