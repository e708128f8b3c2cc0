package moonshine

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Vocabulary maps the model's token ids to SentencePiece pieces: "▁" marks
// the start of a word, "<0xNN>" is a raw byte, and the first three ids are
// <unk>, <s> and </s>.
type Vocabulary struct {
	pieces []string
}

// Special token ids of the model's vocabulary.
const (
	unknownToken = 0
	startToken   = 1
	endToken     = 2
)

// wordMark is SentencePiece's marker for a space before a piece.
const wordMark = "\u2581"

// ReadVocabulary reads tokens.txt: one piece a line, in id order.
func ReadVocabulary(path string) (*Vocabulary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("moonshine: reading the vocabulary: %w", err)
	}
	defer f.Close()
	var pieces []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pieces = append(pieces, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("moonshine: reading the vocabulary: %w", err)
	}
	if len(pieces) <= endToken || pieces[endToken] != "</s>" {
		return nil, errors.New("moonshine: the vocabulary does not start <unk>, <s>, </s>")
	}
	return &Vocabulary{pieces: pieces}, nil
}

// Token is one decoded token and the probability the decoder gave it.
type Token struct {
	ID   int
	Prob float64
}

// Word is a word of the decoded text (punctuation attached, as the model
// wrote it) and its confidence: the product of the probabilities of the
// tokens it was written with.
type Word struct {
	Text       string
	Confidence float64
}

// Words turns decoded tokens into words. Special ids and ids past the
// vocabulary (the model's output layer is wider than LLaMA's 32,000 pieces)
// write nothing; byte pieces are joined into UTF-8, and a byte sequence that
// is not valid UTF-8 is dropped.
func (v *Vocabulary) Words(tokens []Token) []Word {
	var (
		words []Word
		text  []byte
		conf  = 1.0
	)
	flush := func() {
		if len(text) > 0 {
			s := strings.ToValidUTF8(string(text), "")
			if s != "" {
				words = append(words, Word{Text: s, Confidence: conf})
			}
		}
		text, conf = text[:0], 1
	}
	for _, t := range tokens {
		if t.ID <= endToken || t.ID >= len(v.pieces) {
			continue
		}
		piece := v.pieces[t.ID]
		if b, ok := bytePiece(piece); ok {
			if b == ' ' {
				flush()
				continue
			}
			text = append(text, b)
			conf *= t.Prob
			continue
		}
		// A piece may hold the marker at its start (a new word) or, rarely,
		// on its own or inside it (more than one space).
		parts := strings.Split(piece, wordMark)
		for i, part := range parts {
			if i > 0 {
				flush()
			}
			text = append(text, part...)
		}
		// A piece that was only markers leaves its probability to the
		// word it opens.
		conf *= t.Prob
	}
	flush()
	return words
}

// bytePiece reads a "<0xNN>" piece.
func bytePiece(p string) (byte, bool) {
	if len(p) != 6 || !strings.HasPrefix(p, "<0x") || p[5] != '>' {
		return 0, false
	}
	n, err := strconv.ParseUint(p[3:5], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(n), true
}

// probOf returns the softmax probability of index best among logits.
func probOf(logits []float32, best int) float64 {
	m := float64(logits[best])
	var sum float64
	for _, l := range logits {
		sum += math.Exp(float64(l) - m)
	}
	return 1 / sum
}
