package train

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Word classes (insights.FeatureSet.Clusters), an experiment recorded
// in README.md: every word of a large general vocabulary belongs to a
// class of words that pre-trained word vectors put close together, each class
// to a coarser one, and so on for a few levels (infra/bench/cmd/wordclusters
// says how they are made). A model reading a call's classes next to its words
// could carry what it learned from "cancel" in training to "postpone", which
// no training call used. Cross-validated it moved no category by more than
// two calls in 221, so the shipped model does not read them and the file is
// not embedded: `make word-clusters` writes it into .cache, and
// `trainmodel -experiments -word-clusters …` compares the method again.

// WordClasses maps a word to its class id at each level, finest first.
type WordClasses map[string]wordClass

type wordClass []int

// LoadWordClasses reads a word-classes file written by wordclusters.
func LoadWordClasses(path string) (WordClasses, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	wc := parseWordClasses(string(b))
	if len(wc) == 0 {
		return nil, fmt.Errorf("%s: no word classes", path)
	}
	return wc, nil
}

// parseWordClasses reads the file's lines "<id> <id> … word word …" (the
// class at each level, finest first, then the class's words); '#' lines are
// comments; a line without ids is skipped.
func parseWordClasses(text string) WordClasses {
	out := WordClasses{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		var ids wordClass
		for len(f) > 0 {
			n, err := strconv.Atoi(f[0])
			if err != nil {
				break
			}
			ids = append(ids, n)
			f = f[1:]
		}
		if len(ids) == 0 {
			continue
		}
		for _, w := range f {
			out[w] = ids
		}
	}
	return out
}

// names are the feature names of a word's classes under prefix p ("" for the
// call, "f:" for the opening turns …): p+"k0:17", p+"k1:3", ….
func (c wordClass) names(p string) []string {
	out := make([]string, len(c))
	for l, id := range c {
		out[l] = p + "k" + strconv.Itoa(l) + ":" + strconv.Itoa(id)
	}
	return out
}

// of returns a word's classes; ok is false outside the vocabulary or without
// a table.
func (wc WordClasses) of(word string) (wordClass, bool) {
	c, ok := wc[word]
	return c, ok
}
