package apitest

import (
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/audio/tone"
)

// PIICall is a synthesised stereo call in which the User (flite's rms voice,
// right channel: the voice the embedded engine recognises digits and
// addresses in best) reads out a card number, a phone number and an e-mail
// address when the Agent (slt, left) asks.
type PIICall struct {
	Audio []byte
	// Filename is the upload's: pii-call.wav, or pii-call.mp3 (MP3).
	Filename string
	// Secrets are the values as a transcript, a log line or a file could
	// hold them (spoken words and digits), matched case-insensitively.
	Secrets []string
	// SecretAudio are stretches of the uploaded file's bytes from the middle
	// of each line that reads out a value: a copy of the unredacted
	// recording anywhere would hold them.
	SecretAudio [][]byte
	// secretFrames are the middle frames of the lines that read out a value.
	secretFrames []int
}

// piiLines are the call's lines: the User's carry the values.
var piiLines = []struct {
	speaker int
	text    string
}{
	{0, "can I take the card number please"},
	{1, "four two four two four two four two four two four two four two four two"},
	{0, "and a phone number"},
	{1, "five five five one two three four five six seven"},
	{0, "and your email address"},
	{1, "my email is john at example dot com"},
}

// SynthesizePIICall speaks piiLines in turn, 0.6 s apart. It skips the test
// where flite or sox is missing (make deps-speech).
func SynthesizePIICall(t *testing.T) PIICall {
	t.Helper()
	for _, tool := range []string{"flite", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; run make deps-speech", tool)
		}
	}
	dir := t.TempDir()
	gap := int(0.6 * WAVSampleRate)
	var ch [2][]int16
	var secretAt []int // the middle frame of each User line
	at := gap
	for i, l := range piiLines {
		pcm := fliteSpeech(t, dir, i, []string{"slt", "rms"}[l.speaker], l.text)
		for c := range ch {
			if len(ch[c]) < at+len(pcm)+gap {
				ch[c] = append(ch[c], make([]int16, at+len(pcm)+gap-len(ch[c]))...)
			}
		}
		copy(ch[l.speaker][at:], pcm)
		if l.speaker == 1 {
			secretAt = append(secretAt, at+len(pcm)/2)
		}
		at += len(pcm) + gap
	}
	audio := decode.EncodeWAV(WAVSampleRate, ch[0], ch[1])
	var secretAudio [][]byte
	for _, frame := range secretAt {
		off := 44 + 4*frame // the canonical header, then 2 channels of 16 bits a frame
		secretAudio = append(secretAudio, audio[off:off+256])
	}
	return PIICall{
		Audio:        audio,
		Filename:     "pii-call.wav",
		SecretAudio:  secretAudio,
		secretFrames: secretAt,
		Secrets: []string{
			"four two four two", "4242424242424242", "4242 4242", "five five five one", "5551234567", "555-123",
			"john at example", "example dot com", "john@example",
		},
	}
}

// MP3 is the call encoded as an 8 kHz stereo MP3 (MPEG-2.5, as telephone
// systems record) by lame, which it needs (make deps-speech): 64 kbit/s, the
// channels coded apart and lame's lowpass off, since the embedded engine
// mishears "at" in the e-mail address of lame's default (lowpassed, joint
// stereo) encoding and would leave the address untoned. Its SecretAudio
// adds, for each value, a stretch of the MP3's bytes and of its decoded
// samples (where this build decodes MP3): a copy of the upload, or of its
// decoding before the tone, anywhere would hold them.
func (c PIICall) MP3(t *testing.T) PIICall {
	t.Helper()
	if _, err := exec.LookPath("lame"); err != nil {
		t.Skip("lame is not installed; run make deps-speech")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "call.wav"), filepath.Join(dir, "call.mp3")
	if err := os.WriteFile(in, c.Audio, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("lame", "--quiet", "-m", "s", "-b", "64", "--lowpass", "-1", in, out).CombinedOutput(); err != nil {
		t.Fatalf("lame: %v: %s", err, b)
	}
	mp3, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	frames := (len(c.Audio) - 44) / 4
	secretAudio := slices.Clone(c.SecretAudio)
	decoded, derr := decode.DecodeMP3(mp3)
	var pcm []byte
	if derr == nil {
		pcm = decode.EncodeWAV(decoded.SampleRate, decoded.Channels...)
	}
	for _, frame := range c.secretFrames {
		// A constant bitrate: the byte offset is in proportion to the time.
		off := len(mp3) * frame / frames
		secretAudio = append(secretAudio, mp3[off:off+256])
		if off := 44 + 4*frame; derr == nil && off+256 <= len(pcm) {
			secretAudio = append(secretAudio, pcm[off:off+256])
		}
	}
	c.Audio, c.Filename, c.SecretAudio = mp3, "pii-call.mp3", secretAudio
	return c
}

// RedactionPlaces are where a stack could keep what a job saw: files and
// directories whose every byte is searched for a call's secrets once its
// jobs are done (a database file and its WAL, the audio directory, the
// temporary directories the service used, its captured logs).
type RedactionPlaces func() []string

// RunRedactedCall uploads a PIICall with redact_pii=true to a target running
// a real speech engine and checks that: the transcript has a card, a phone
// number and an e-mail address as [REDACTED:...] tokens and no secret; the
// result counts them; the stored audio, which playback serves (the toned WAV,
// or an MP3's toned WAV rendition), is a 1 kHz tone over every redacted word
// on both channels; a summary made from it, its exports and a text-only
// tags job asked with redact_pii see no secret; and, when places is not nil,
// no file it names holds a secret, in words or in the recording's bytes.
func RunRedactedCall(t *testing.T, target Target, opts Options, call PIICall, places RedactionPlaces) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)
	yes := "true"
	id := a.MustUpload(t, Upload{Filename: call.Filename, Data: call.Audio, Language: "en", RedactPII: &yes})
	if id == "" {
		t.FailNow()
	}
	r := s.mustSucceed(t, a, id)
	noSecrets := func(what string, b []byte) {
		t.Helper()
		low := bytes.ToLower(b)
		for _, secret := range call.Secrets {
			if bytes.Contains(low, []byte(strings.ToLower(secret))) {
				t.Errorf("%s holds %q: %s", what, secret, b)
			}
		}
	}
	noSecrets("the transcription", r.Raw)
	for _, token := range []string{"[REDACTED:CARD]", "[REDACTED:PHONE]", "[REDACTED:EMAIL]"} {
		if !bytes.Contains(r.Raw, []byte(token)) {
			t.Errorf("the transcript has no %s: %s", token, r.Raw)
		}
	}
	res, _ := r.Body["result"].(map[string]any)
	for _, sv := range res["transcript"].([]any) {
		seg := sv.(map[string]any)
		t.Logf("%v: %v", seg["speaker_alias"], seg["text"])
	}
	red, _ := res["redaction"].(map[string]any)
	cats, _ := red["categories"].(map[string]any)
	for _, c := range []string{"card", "phone", "email"} {
		if n, _ := num(cats[c]); n < 1 {
			t.Errorf("redaction %v: want at least one %s", red, c)
		}
	}
	if red["audio"] != "toned" {
		t.Errorf("redaction.audio = %v, want toned", red["audio"])
	}

	// The stored audio, through the player's link: a tone wherever a token
	// word is (the word's own time; the tone is padded beyond it).
	link := s.c.do(t, http.MethodGet, "/dashboard/jobs/"+id+"/audio", nil, withBearer(a.Token))
	if expectStatus(t, link, http.StatusOK) {
		status, stored := fetchRange(t, link.Str("url"), "")
		audio, err := decode.DecodeWAV(stored)
		if status != http.StatusOK || err != nil {
			t.Fatalf("audio: %d, %v", status, err)
		}
		toned := 0
		for _, sv := range res["transcript"].([]any) {
			words, _ := sv.(map[string]any)["words"].([]any)
			for _, wv := range words {
				w := wv.(map[string]any)
				if !strings.HasPrefix(w["text"].(string), "[REDACTED:") {
					continue
				}
				start, _ := num(w["start"])
				end, _ := num(w["end"])
				from, to := int(start*WAVSampleRate), int(end*WAVSampleRate)
				for c, samples := range audio.Channels {
					if share := tone.Share(samples[from:min(to, len(samples))], WAVSampleRate); share < 0.9 {
						t.Errorf("channel %d %.2f-%.2f s (%s): 1 kHz share %.2f, want a tone", c, start, end, w["text"], share)
					}
				}
				toned++
			}
		}
		if toned < 3 {
			t.Errorf("%d redacted words, want at least 3", toned)
		}
		if share := tone.Share(audio.Channels[0][:int(0.5*WAVSampleRate)], WAVSampleRate); share > 0.5 {
			t.Errorf("the call's first half second is a tone (share %.2f): more than the redacted words was toned", share)
		}
	}

	for _, format := range []string{"txt", "json", "srt"} {
		f := s.c.download(t, "/v1/transcriptions/"+id+"/export?format="+format, withBearer(a.APIKey))
		if expectStatus(t, f, http.StatusOK) {
			noSecrets("the "+format+" export", f.Raw)
		}
	}
	summary := a.MustDerive(t, "summary", map[string]any{"transcription_job_id": id})
	if summary != "" {
		noSecrets("the summary", s.mustSucceed(t, a, summary).Raw)
	}
	tags := a.MustDerive(t, "tags", map[string]any{
		"transcript_text": "User: my card is 4242 4242 4242 4242, call me on 555-123-4567 or mail john@example.com",
		"redact_pii":      true,
	})
	if tags != "" {
		tr := s.mustSucceed(t, a, tags)
		noSecrets("the tags job", tr.Raw)
		res, _ := tr.Body["result"].(map[string]any)
		red, _ := res["redaction"].(map[string]any)
		cats, _ := red["categories"].(map[string]any)
		for _, c := range []string{"card", "phone", "email"} {
			if n, _ := num(cats[c]); n != 1 {
				t.Errorf("the tags job's redaction %v: want one %s", red, c)
			}
		}
	}
	expectError(t, a.Derive(t, "tags", map[string]any{"transcript_text": "hello", "redact_pii": "yes"}), http.StatusBadRequest, "INVALID_REDACT_PII")
	bad := "maybe"
	expectError(t, a.Upload(t, Upload{Filename: call.Filename, Data: call.Audio, RedactPII: &bad}), http.StatusBadRequest, "INVALID_REDACT_PII")

	if places == nil {
		return
	}
	searched := 0
	for _, root := range places() {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			searched++
			noSecrets(path, b)
			for i, chunk := range call.SecretAudio {
				if bytes.Contains(b, chunk) {
					t.Errorf("%s holds the unredacted recording of value %d", path, i+1)
				}
			}
			return nil
		})
	}
	if searched == 0 {
		t.Error("no file was searched for the secrets")
	}
	t.Logf("searched %d files for the call's secrets", searched)
}
