package sphinx

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// writePronunciations writes to out the lines of the pronouncing dictionary
// at dict (CMU format: a word, or word(N) for an alternate, then its phones)
// for the given words, alternates included, in the dictionary's order.
//
// Speaker adaptation gives each bw run a dictionary of only the words its
// transcription holds. bw reads and indexes the whole dictionary it is given
// on every run, and cmudict-en-us.dict has 134,000 entries: on a short
// channel that was about half of each run (0.75 s of CPU against 0.41 s with
// the transcription's 26 words), for statistics and alignment scores
// identical byte for byte, since bw looks up nothing but the transcription's
// words (noises and silences come from the model's own noisedict). The
// dictionary is streamed from disk on each call rather than held in memory:
// a map of its entries cost the engine some 45 MiB of peak RSS, while the
// scan takes about 6 ms (BenchmarkWritePronunciations), a fiftieth of the bw
// time it saves. A word the dictionary lacks is left out, as it would be
// missing from the whole dictionary: bw reports it and skips that utterance
// either way.
func writePronunciations(dict, out string, words []string) error {
	want := make(map[string]bool, len(words))
	for _, w := range words {
		want[w] = true
	}
	in, err := os.Open(dict)
	if err != nil {
		return err
	}
	defer in.Close()
	var buf bytes.Buffer
	r := bufio.NewReaderSize(in, 256*1024)
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return fmt.Errorf("%s: a line longer than %d bytes", dict, r.Size())
		}
		if want[string(entryWord(line))] {
			buf.Write(bytes.TrimRight(line, "\r\n"))
			buf.WriteByte('\n')
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", dict, err)
		}
	}
	return os.WriteFile(out, buf.Bytes(), 0o600)
}

// entryWord is the word a dictionary line gives a pronunciation of: its
// first field without an alternate's "(N)"; nil for a blank or comment line.
func entryWord(line []byte) []byte {
	head, _, ok := bytes.Cut(bytes.TrimLeft(line, " \t"), []byte(" "))
	if !ok || len(head) == 0 || bytes.HasPrefix(head, []byte(";;")) {
		return nil
	}
	if i := bytes.IndexByte(head, '('); i > 0 && head[len(head)-1] == ')' {
		head = head[:i]
	}
	return head
}
