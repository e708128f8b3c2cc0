// Command narrowbandadapt adapts the acoustic model of the embedded engine to
// telephone-band speech with SphinxTrain (Debian package sphinxtrain): bw
// collects Baum-Welch statistics of the en-us model on narrowband speech whose
// transcripts are known, then mllr_solve estimates an MLLR mean transform
// (the default, written to shared/sphinx/narrowband_mapped.mllr) or map_adapt makes
// MAP-adapted means and variances (-method map, a model directory).
//
// The speech is what the narrowband map is fitted on (infra/bench/internal/speechdata):
// sentences of the domain LM text, disjoint from the evaluation dialogues and
// from the dev calls, spoken by voices the ASR bench does not use, converted
// to 8 kHz by sox. The features are the ones the engine decodes for that audio
// (-features engine: upsampled, then moved by the narrowband map as far as the
// pitch rule says), or the plain upsampled ones (-features plain).
//
// Usage:
//
//	narrowbandadapt [-out FILE] [-work DIR] [-method mllr|map] [-features engine|plain] [-voices mapped|unmapped|LIST]
//
// The model files SphinxTrain needs and PocketSphinx's package does not ship
// in that form are made from it: the model definition as text (PocketSphinx's
// own bin_mdef_write_text) and the mixture weights from the quantised sendump.
package main

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <sphinxbase/cmd_ln.h>

typedef struct bin_mdef_s bin_mdef_t;
bin_mdef_t *bin_mdef_read(cmd_ln_t *config, const char *filename);
int bin_mdef_write_text(bin_mdef_t *m, const char *filename);
int bin_mdef_free(bin_mdef_t *m);

static int mdef_to_text(const char *in, const char *out) {
	bin_mdef_t *m = bin_mdef_read(NULL, in);
	if (m == NULL) return -1;
	int rc = bin_mdef_write_text(m, out);
	bin_mdef_free(m);
	return rc;
}
*/
import "C"

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/callscribe/callscribe/infra/bench/internal/speechdata"
	"github.com/callscribe/callscribe/shared/sphinx"
)

// mappedVoices are the voices of the narrowband map's training set
// (speechdata.MapVoices) whose features the engine maps: the pitch rule gives
// them a mean map weight of 1.00 (espeak's en-us f1-f4) and 0.99 (awb shifted
// up 500 cents), the others 0.00-0.03, as this command logs per voice. The
// shipped transform is for the channels the map applies to, so it is
// estimated on these.
const mappedVoices = "espeak:en-us+f1,espeak:en-us+f2,espeak:en-us+f3,espeak:en-us+f4,flite:awb@500"

// unmappedVoices are the others, for the transform of the channels the map
// leaves alone (narrowband_unmapped.mllr).
const unmappedVoices = "flite:awb,flite:kal16,espeak:en-us+m3,espeak:en-gb+f3,flite:awb@250,flite:kal16@250,flite:kal16@500"

func main() {
	out := flag.String("out", "shared/sphinx/narrowband_mapped.mllr", "where to write the MLLR transform (-method mllr) or the model directory (-method map)")
	method := flag.String("method", "mllr", "mllr (a mean transform) or map (MAP-adapted means and variances)")
	features := flag.String("features", "engine", "engine (the features the engine decodes: narrowband map by the pitch rule) or plain (upsampled, unmapped)")
	voices := flag.String("voices", "mapped", "training voices: mapped, unmapped (the map's training voices the engine maps, or not) or a comma-separated list (as narrowbandmap)")
	textPath := flag.String("text", "shared/sphinx/lmdata/callcentre.txt", "training sentences, one a line (# comments)")
	cache := flag.String("cache", ".cache/narrowband-map", "synthesised audio (shared with narrowbandmap)")
	work := flag.String("work", ".cache/narrowband-adapt", "work directory (features, statistics, model copies)")
	modelDir := flag.String("model", sphinx.DefaultModelDir, "PocketSphinx model directory (en-us/, cmudict-en-us.dict)")
	tools := flag.String("sphinxtrain", "/usr/lib/sphinxtrain", "directory of SphinxTrain's bw, mllr_solve and map_adapt")
	limit := flag.Int("sentences", 0, "use only the first N sentences (0: all)")
	tau := flag.Float64("tau", 10, "MAP prior weight (map_adapt -tau with -fixedtau)")
	reuse := flag.Bool("reuse-stats", false, "reuse the Baum-Welch statistics of an earlier run with the same -features and -voices (skips features and bw)")
	flag.Parse()
	switch *voices {
	case "mapped":
		*voices = mappedVoices
	case "unmapped":
		*voices = unmappedVoices
	}
	if *method != "mllr" && *method != "map" {
		fatal(fmt.Errorf("-method %q: want mllr or map", *method))
	}
	if *features != "engine" && *features != "plain" {
		fatal(fmt.Errorf("-features %q: want engine or plain", *features))
	}
	start := time.Now()
	sentences, err := speechdata.ReadSentences(*textPath)
	if err != nil {
		fatal(err)
	}
	if *limit > 0 && *limit < len(sentences) {
		sentences = sentences[:*limit]
	}
	base := filepath.Join(*work, "base")
	if err := prepareModel(filepath.Join(*modelDir, "en-us"), base); err != nil {
		fatal(fmt.Errorf("preparing the model for SphinxTrain: %w", err))
	}
	dict := filepath.Join(*modelDir, "cmudict-en-us.dict")
	words, err := sphinx.ReadDictionaryWords(dict)
	if err != nil {
		fatal(err)
	}
	accum := filepath.Join(*work, "accum-"+*features)
	b, err := os.ReadFile(filepath.Join(accum, "description"))
	desc := string(b)
	if !*reuse || err != nil {
		if desc, err = collectStats(*features, *voices, *textPath, *cache, *work, accum, sentences, words, dict, base, *tools); err != nil {
			fatal(err)
		}
	}
	switch *method {
	case "mllr":
		tmp := filepath.Join(*work, "mllr_matrix-"+*features)
		if err := run(filepath.Join(*tools, "mllr_solve"), filepath.Join(*work, "mllr_solve-"+*features+".log"),
			"-meanfn", filepath.Join(base, "means"), "-varfn", filepath.Join(base, "variances"),
			"-outmllrfn", tmp, "-accumdir", accum); err != nil {
			fatal(err)
		}
		b, err := os.ReadFile(tmp)
		if err != nil {
			fatal(err)
		}
		if _, err := sphinx.ParseMLLR(b); err != nil {
			fatal(fmt.Errorf("mllr_solve wrote a transform the engine rejects: %w", err))
		}
		// The engine's reader stops after the numbers, so a trailing comment
		// line records what the transform was estimated on.
		b = append(b, []byte("\n# narrowbandadapt: "+desc+"\n")...)
		if err := os.WriteFile(*out, b, 0o644); err != nil {
			fatal(err)
		}
	case "map":
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fatal(err)
		}
		if err := run(filepath.Join(*tools, "map_adapt"), filepath.Join(*work, "map_adapt.log"),
			"-moddeffn", filepath.Join(base, "mdef.txt"), "-ts2cbfn", ".ptm.",
			"-meanfn", filepath.Join(base, "means"), "-varfn", filepath.Join(base, "variances"),
			"-mixwfn", filepath.Join(base, "mixture_weights"), "-tmatfn", filepath.Join(base, "transition_matrices"),
			"-accumdir", accum, "-fixedtau", "yes", "-tau", fmt.Sprint(*tau), "-bayesmean", "no",
			"-mapmeanfn", filepath.Join(*out, "means"), "-mapvarfn", filepath.Join(*out, "variances"),
			"-mapmixwfn", filepath.Join(*work, "map_mixture_weights"), "-maptmatfn", filepath.Join(*work, "map_transition_matrices")); err != nil {
			fatal(err)
		}
		// The rest of the model is the stock one: only the Gaussians move.
		src := filepath.Join(*modelDir, "en-us")
		for _, f := range []string{"mdef", "sendump", "transition_matrices", "noisedict", "feat.params"} {
			if err := copyFile(filepath.Join(src, f), filepath.Join(*out, f)); err != nil {
				fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(*out, "README"), []byte("MAP-adapted means and variances of pocketsphinx-en-us (tau "+fmt.Sprint(*tau)+") by narrowbandadapt: "+desc+"\n"), 0o644); err != nil {
			fatal(err)
		}
	}
	fmt.Printf("narrowbandadapt: wrote %s (%s) in %s\n", *out, desc, time.Since(start).Round(time.Second))
}

// collectStats computes the training features, runs bw and returns what the
// statistics were collected on (also kept in accum/description).
func collectStats(features, voices, textPath, cache, work, accum string, sentences []string, words map[string]bool, dict, base, tools string) (string, error) {
	tr, err := sphinx.NewTranscriber(sphinx.Config{Decoders: 1, DomainLMWeight: -1, DisableNarrowbandMap: features == "plain"})
	if err != nil {
		return "", err
	}
	defer tr.Close()
	feat := filepath.Join(work, "feat-"+features)
	if err := os.MkdirAll(feat, 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	var ctl, lsn strings.Builder
	var seconds float64
	n, skipped := 0, 0
	ctx := context.Background()
	for _, voice := range strings.Split(voices, ",") {
		var weights float64
		for i, text := range sentences {
			toks := sphinx.NormalizeText(text)
			if !allKnown(toks, words) {
				skipped++
				continue
			}
			_, narrow, err := speechdata.Synthesise(cache, voice, text)
			if err != nil {
				return "", fmt.Errorf("%s: %w", voice, err)
			}
			cep, dim, w, err := tr.DecodedCepstra(ctx, narrow, 8000)
			if err != nil {
				return "", err
			}
			if dim != 13 {
				return "", fmt.Errorf("cepstra of %d values, want 13", dim)
			}
			id := fmt.Sprintf("%s-%03d", strings.NewReplacer(":", "-", "+", "-", "@", "-").Replace(voice), i)
			if err := writeMFC(filepath.Join(feat, id+".mfc"), cep); err != nil {
				return "", err
			}
			fmt.Fprintln(&ctl, id)
			fmt.Fprintf(&lsn, "<s> %s </s> (%s)\n", strings.Join(toks, " "), id)
			weights += w
			seconds += float64(len(narrow)) / 8000
			n++
		}
		fmt.Fprintf(os.Stderr, "narrowbandadapt: %s: features done (mean map weight %.2f)\n", voice, weights/float64(len(sentences)))
	}
	ctlPath, lsnPath := filepath.Join(work, "train-"+features+".fileids"), filepath.Join(work, "train-"+features+".transcription")
	if err := os.WriteFile(ctlPath, []byte(ctl.String()), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(lsnPath, []byte(lsn.String()), 0o644); err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "narrowbandadapt: %d utterances (%.0f s), %d sentence readings skipped for words outside the dictionary\n", n, seconds, skipped)
	if err := os.RemoveAll(accum); err != nil {
		return "", err
	}
	if err := os.MkdirAll(accum, 0o755); err != nil {
		return "", err
	}
	if err := run(filepath.Join(tools, "bw"), filepath.Join(work, "bw-"+features+".log"),
		"-hmmdir", base, "-moddeffn", filepath.Join(base, "mdef.txt"), "-ts2cbfn", ".ptm.",
		"-feat", "1s_c_d_dd", "-svspec", "0-12/13-25/26-38", "-cmn", "batch", "-agc", "none",
		"-dictfn", dict, "-fdictfn", filepath.Join(base, "noisedict"),
		"-ctlfn", ctlPath, "-lsnfn", lsnPath, "-cepdir", feat, "-cepext", "mfc",
		"-accumdir", accum, "-timing", "no"); err != nil {
		return "", err
	}
	desc := fmt.Sprintf("%.0f s of speech (%d utterances): sentences of %s (the domain LM text) in voices %s; 8 kHz by sox, %s features",
		seconds, n, filepath.Base(textPath), strings.Join(strings.Split(voices, ","), " "), features)
	return desc, os.WriteFile(filepath.Join(accum, "description"), []byte(desc), 0o644)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "narrowbandadapt:", err)
	os.Exit(1)
}

// run runs a SphinxTrain tool with its output in logPath.
func run(tool, logPath string, args ...string) error {
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(tool, args...)
	cmd.Stdout, cmd.Stderr = f, f
	fmt.Fprintf(os.Stderr, "narrowbandadapt: %s (log %s)\n", filepath.Base(tool), logPath)
	if err := cmd.Run(); err != nil {
		tail, _ := os.ReadFile(logPath)
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("%s: %v (install sphinxtrain); end of its log:\n%s", filepath.Base(tool), err, tail)
	}
	return nil
}

// prepareModel copies the stock model into dir in the form SphinxTrain reads:
// a text model definition and s3 mixture weights.
func prepareModel(src, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"means", "variances", "transition_matrices", "noisedict", "feat.params"} {
		if err := copyFile(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	in, out := C.CString(filepath.Join(src, "mdef")), C.CString(filepath.Join(dir, "mdef.txt"))
	defer C.free(unsafe.Pointer(in))
	defer C.free(unsafe.Pointer(out))
	if C.mdef_to_text(in, out) < 0 {
		return errors.New("converting mdef to text failed")
	}
	b, err := os.ReadFile(filepath.Join(src, "sendump"))
	if err != nil {
		return err
	}
	mixw, nSen, nFeat, nCW, err := readSendump(b)
	if err != nil {
		return err
	}
	return writeS3(filepath.Join(dir, "mixture_weights"), []uint32{uint32(nSen), uint32(nFeat), uint32(nCW)}, mixw)
}

// readSendump decodes PocketSphinx's quantised mixture weights (unclustered
// sendump, as pocketsphinx-en-us ships): a header of length-prefixed strings
// ending in a zero length, the codeword and senone counts, then for each
// feature stream and codeword one byte per senone holding -log1.0001(w) >> 10.
// The result is indexed [senone][feature][codeword], each row normalised.
func readSendump(b []byte) (mixw []float32, nSen, nFeat, nCW int, err error) {
	p := 0
	next := func() (uint32, bool) {
		if p+4 > len(b) {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(b[p:])
		p += 4
		return v, true
	}
	for {
		n, ok := next()
		if !ok || int(n) > len(b)-p {
			return nil, 0, 0, 0, errors.New("sendump: truncated header")
		}
		if n == 0 {
			break
		}
		s := strings.TrimRight(string(b[p:p+int(n)]), "\x00")
		p += int(n)
		var v int
		switch {
		case strings.HasPrefix(s, "feature_count "):
			fmt.Sscan(s[len("feature_count "):], &nFeat)
		case strings.HasPrefix(s, "cluster_count "):
			fmt.Sscan(s[len("cluster_count "):], &v)
			if v != 0 {
				return nil, 0, 0, 0, errors.New("sendump: clustered weights are not supported")
			}
		case strings.HasPrefix(s, "mixw_shift "), strings.HasPrefix(s, "cluster_bits "):
			return nil, 0, 0, 0, fmt.Errorf("sendump: unsupported header %q", s)
		}
	}
	cw, ok1 := next()
	sen, ok2 := next()
	nCW, nSen = int(cw), int(sen)
	if !ok1 || !ok2 || nFeat <= 0 || len(b)-p != nFeat*nCW*nSen {
		return nil, 0, 0, 0, fmt.Errorf("sendump: %d bytes of weights for %d streams, %d codewords, %d senones", len(b)-p, nFeat, nCW, nSen)
	}
	mixw = make([]float32, nSen*nFeat*nCW)
	for f := 0; f < nFeat; f++ {
		for c := 0; c < nCW; c++ {
			row := b[p+(f*nCW+c)*nSen:]
			for s := 0; s < nSen; s++ {
				mixw[(s*nFeat+f)*nCW+c] = float32(math.Pow(1.0001, -float64(int(row[s])<<10)))
			}
		}
	}
	for i := 0; i < nSen*nFeat; i++ {
		row := mixw[i*nCW : (i+1)*nCW]
		var sum float64
		for _, v := range row {
			sum += float64(v)
		}
		for j := range row {
			row[j] = float32(float64(row[j]) / sum)
		}
	}
	return mixw, nSen, nFeat, nCW, nil
}

// writeS3 writes a SphinxTrain binary parameter file: the "s3" header, the
// byte-order mark, the dimensions, the value count and the values.
func writeS3(path string, dims []uint32, data []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	hdr := "s3\nversion 1.0\n"
	if pad := (len(hdr) + len("endhdr\n")) % 4; pad != 0 {
		hdr += strings.Repeat(" ", 4-pad)
	}
	hdr += "endhdr\n"
	w.WriteString(hdr)
	for _, v := range append([]uint32{0x11223344}, append(dims, uint32(len(data)))...) {
		binary.Write(w, binary.LittleEndian, v)
	}
	binary.Write(w, binary.LittleEndian, data)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeMFC writes cepstra in Sphinx's feature file format: the number of
// values, then the values (little-endian; readers detect the order).
func writeMFC(path string, cep []float32) error {
	b := make([]byte, 4+4*len(cep))
	binary.LittleEndian.PutUint32(b, uint32(len(cep)))
	for i, v := range cep {
		binary.LittleEndian.PutUint32(b[4+4*i:], math.Float32bits(v))
	}
	return os.WriteFile(path, b, 0o644)
}

func allKnown(toks []string, words map[string]bool) bool {
	for _, t := range toks {
		if !words[t] {
			return false
		}
	}
	return len(toks) > 0
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
