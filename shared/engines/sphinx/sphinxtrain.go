package sphinx

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SphinxTrain (Debian package sphinxtrain) estimates adaptations of the
// acoustic model: bw collects Baum-Welch statistics of the model on speech
// whose words are known, mllr_solve turns them into an MLLR transform. The
// offline trainer (infra/bench/cmd/narrowbandadapt) and the engine's
// per-channel speaker adaptation (speaker_cgo.go) both run them on a copy of
// the model in the form SphinxTrain reads (PrepareTrainingModel).

// DefaultSphinxTrainDir is where Debian installs SphinxTrain's tools.
const DefaultSphinxTrainDir = "/usr/lib/sphinxtrain"

// bwFeatureArgs describe the features of pocketsphinx-en-us to bw: 13
// cepstra with deltas and double deltas in three streams, CMN over each
// utterance as the decoder applies it to an utterance given whole.
var bwFeatureArgs = []string{"-feat", "1s_c_d_dd", "-svspec", "0-12/13-25/26-38", "-cmn", "batch", "-agc", "none"}

// RunBW collects Baum-Welch statistics into accum (which must exist) for the
// utterances listed in ctl (ids of cepdir/ID.mfc) with the transcripts in lsn,
// on the model prepared in model (PrepareTrainingModel). mllr, when not "",
// is a transform applied to the model's means while aligning. The tool's
// output goes to logPath.
func RunBW(ctx context.Context, tools, model, dict, ctl, lsn, cepdir, accum, mllr, logPath string) error {
	return RunSphinxTrain(ctx, filepath.Join(tools, "bw"), logPath, bwArgs(model, dict, ctl, lsn, cepdir, accum, mllr)...)
}

// bwArgs are bw's arguments for RunBW and AlignmentScores.
func bwArgs(model, dict, ctl, lsn, cepdir, accum, mllr string) []string {
	args := []string{"-hmmdir", model, "-moddeffn", filepath.Join(model, "mdef.txt"), "-ts2cbfn", ".ptm.",
		"-dictfn", dict, "-fdictfn", filepath.Join(model, "noisedict"),
		"-ctlfn", ctl, "-lsnfn", lsn, "-cepdir", cepdir, "-cepext", "mfc",
		"-accumdir", accum, "-timing", "no"}
	args = append(args, bwFeatureArgs...)
	if mllr != "" {
		args = append(args, "-mllrmat", mllr)
	}
	return args
}

// AlignmentScores runs bw as RunBW does and returns each utterance's
// alignment log-likelihood, read from the report bw prints on its standard
// output (kept apart from its diagnostics, which would otherwise interleave
// with it: the report is buffered, the diagnostics are not). An utterance bw
// could not align is missing from the map.
func AlignmentScores(ctx context.Context, tools, model, dict, ctl, lsn, cepdir, accum, mllr, logPath string) (map[string]AlignmentScore, error) {
	var report strings.Builder
	if err := runSphinxTrain(ctx, filepath.Join(tools, "bw"), logPath, &report, bwArgs(model, dict, ctl, lsn, cepdir, accum, mllr)...); err != nil {
		return nil, err
	}
	return parseAlignmentScores(report.String())
}

// SolveMLLR estimates a one-class MLLR mean transform from bw's statistics in
// accum and returns it parsed; the file is written to out.
func SolveMLLR(ctx context.Context, tools, model, accum, out, logPath string) (*MLLR, error) {
	if err := RunSphinxTrain(ctx, filepath.Join(tools, "mllr_solve"), logPath,
		"-meanfn", filepath.Join(model, "means"), "-varfn", filepath.Join(model, "variances"),
		"-outmllrfn", out, "-accumdir", accum); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	m, err := ParseMLLR(b)
	if err != nil {
		return nil, fmt.Errorf("mllr_solve wrote a transform the engine rejects: %w", err)
	}
	return m, nil
}

// RunSphinxTrain runs one SphinxTrain tool with its output in logPath; on
// failure the error carries the end of the log.
func RunSphinxTrain(ctx context.Context, tool, logPath string, args ...string) error {
	return runSphinxTrain(ctx, tool, logPath, nil, args...)
}

// runSphinxTrain is RunSphinxTrain with the tool's standard output sent to
// stdout instead of the log when stdout is not nil.
func runSphinxTrain(ctx context.Context, tool, logPath string, stdout io.Writer, args ...string) error {
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Run(); err != nil {
		tail, _ := os.ReadFile(logPath)
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("%s: %v (install sphinxtrain); end of its log:\n%s", filepath.Base(tool), err, tail)
	}
	return nil
}

// prepareTrainingFiles copies the model files SphinxTrain reads as they are
// and writes the mixture weights unquantised; the text model definition needs
// cgo (PrepareTrainingModel).
func prepareTrainingFiles(src, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"means", "variances", "transition_matrices", "noisedict", "feat.params"} {
		if err := CopyFile(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			return err
		}
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

// WriteMFC writes cepstra in Sphinx's feature file format: the number of
// values, then the values (little-endian; readers detect the order).
func WriteMFC(path string, cep []float32) error {
	b := make([]byte, 4+4*len(cep))
	binary.LittleEndian.PutUint32(b, uint32(len(cep)))
	for i, v := range cep {
		binary.LittleEndian.PutUint32(b[4+4*i:], math.Float32bits(v))
	}
	return os.WriteFile(path, b, 0o644)
}

// CopyFile copies the file src to dst.
func CopyFile(src, dst string) error {
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
