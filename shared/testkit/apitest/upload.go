package apitest

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const maxUploadBytes = 10 << 20 // 10,485,760: the spec's 10 MB

// testUpload covers the POST /v1/transcriptions status table with generated audio.
func (s *suite) testUpload(t *testing.T) {
	a := s.newAccount(t)

	t.Run("Accepted", func(t *testing.T) {
		meta := `{"crm_id":"A-42","tags":["vip",1,true],"nested":{"x":null}}`
		before := time.Now().Add(-2 * time.Second)
		r := a.Upload(t, Upload{Filename: "stereo call.wav", ContentType: "audio/wav", Data: MakeWAV(1.5, 2, false), Metadata: &meta})
		if !expectStatus(t, r, http.StatusAccepted) {
			t.FailNow()
		}
		checkUUID(t, r, "job_id", r.Body["job_id"])
		switch r.Str("status") {
		case "queued", "processing", "succeeded", "failed":
		default:
			t.Errorf("%s: status %q", r, r.Str("status"))
		}
		if rt := checkTime(t, r, "received_at", r.Body["received_at"]); rt.Before(before) || rt.After(time.Now().Add(2*time.Second)) {
			t.Errorf("%s: received_at %v is not now", r, rt)
		}
		for k := range r.Body {
			switch k {
			case "job_id", "status", "received_at", "requestId":
			default:
				t.Logf("note: 202 body carries extra field %q", k)
			}
		}
		id := r.Str("job_id")
		g := s.mustSucceed(t, a, id)
		if g.Str("type") != "transcription" {
			t.Errorf("%s: type want transcription", g)
		}
		if _, ok := g.Body["source_job_id"]; ok {
			t.Errorf("%s: a transcription must not carry source_job_id", g)
		}
		var want, got any
		_ = json.Unmarshal([]byte(meta), &want)
		mb, _ := json.Marshal(g.Body["metadata"])
		_ = json.Unmarshal(mb, &got)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: metadata echoed as %s, want %s", g, mb, meta)
		}
		res := g.Body["result"].(map[string]any)
		if d, _ := num(res["duration_seconds"]); math.Abs(d-1.5) > 0.01 {
			t.Errorf("%s: duration_seconds %v, want 1.5", g, d)
		}
		speakers := speakerAliases(t, g, res)
		if len(speakers) != 2 {
			t.Errorf("%s: stereo audio must give speakers 0 and 1, got %v", g, speakers)
		} else if speakers[0] == speakers[1] {
			t.Errorf("%s: both channels have alias %q; want Agent and User", g, speakers[0])
		}
		if wc, ok := num(res["words_count"]); res["words_count"] != nil && (!ok || wc <= 0) {
			t.Errorf("%s: a tone call with speech segments has words_count %v", g, res["words_count"])
		}
		if !hasSpeech(res) {
			t.Errorf("%s: no segment text for audio with sound", g)
		}
		// The list shows the upload as it was sent.
		l := a.List(t, url.Values{"job_id": {id}})
		item := onlyItem(t, l)
		if item != nil {
			if item["original_filename"] != "stereo call.wav" {
				t.Errorf("%s: original_filename %v", l, item["original_filename"])
			}
			if sec, _ := num(item["audio_seconds"]); math.Abs(sec-1.5) > 0.01 {
				t.Errorf("%s: audio_seconds %v, want 1.5", l, item["audio_seconds"])
			}
			if item["language"] != nil {
				if _, ok := item["language"].(string); !ok {
					t.Errorf("%s: language is neither string nor null", l)
				}
			}
		}
	})

	t.Run("MonoAndLanguage", func(t *testing.T) {
		id := a.MustUpload(t, Upload{Filename: "mono.wav", Data: MakeWAV(0.75, 1, false), Language: "en-US"})
		if id == "" {
			t.FailNow()
		}
		g := s.mustSucceed(t, a, id)
		res := g.Body["result"].(map[string]any)
		if sp := speakerAliases(t, g, res); len(sp) != 1 {
			t.Errorf("%s: mono audio must give one speaker, got %v", g, sp)
		}
		if d, _ := num(res["duration_seconds"]); math.Abs(d-0.75) > 0.01 {
			t.Errorf("%s: duration_seconds %v, want 0.75", g, d)
		}
		item := onlyItem(t, a.List(t, url.Values{"job_id": {id}}))
		if item != nil && item["language"] != "en-US" && item["language"] != "en" {
			t.Errorf("list entry of a job uploaded with language en-US shows language %v", item["language"])
		}
	})

	t.Run("Silent", func(t *testing.T) {
		id := a.MustUpload(t, Upload{Filename: "silence.wav", Data: MakeWAV(1, 2, true)})
		if id == "" {
			t.FailNow()
		}
		g := s.mustSucceed(t, a, id)
		res := g.Body["result"].(map[string]any)
		if hasSpeech(res) {
			t.Errorf("%s: silent audio produced speech", g)
		}
		if wc, ok := num(res["words_count"]); ok && wc != 0 {
			t.Errorf("%s: silent audio words_count %v", g, wc)
		}
	})

	t.Run("AudioFileMissing", func(t *testing.T) {
		meta := `{"a":1}`
		expectError(t, a.Upload(t, Upload{NoFile: true, Language: "en", Metadata: &meta}), http.StatusBadRequest, "AUDIO_FILE_MISSING")
		expectError(t, a.Upload(t, Upload{Filename: "empty.wav", Data: []byte{}}), http.StatusBadRequest, "AUDIO_FILE_MISSING")
		// A file sent in another field is not the `file` field.
		body, ct := multipartBody(Upload{NoFile: true, Language: "en"})
		r := s.c.do(t, http.MethodPost, "/v1/transcriptions", []byte(strings.Replace(string(body), `name="language"`, `name="audio"; filename="a.wav"`, 1)), withBearer(a.APIKey), withContentType(ct))
		expectError(t, r, http.StatusBadRequest, "AUDIO_FILE_MISSING")
		// Not multipart at all.
		r = s.c.do(t, http.MethodPost, "/v1/transcriptions", []byte(`{"file":"call.wav"}`), withBearer(a.APIKey), withContentType("application/json"))
		expectError(t, r, http.StatusBadRequest, "AUDIO_FILE_MISSING")
		r = s.c.do(t, http.MethodPost, "/v1/transcriptions", MakeWAV(0.5, 1, false), withBearer(a.APIKey), withContentType("audio/wav"))
		expectError(t, r, http.StatusBadRequest, "AUDIO_FILE_MISSING")
		r = s.c.do(t, http.MethodPost, "/v1/transcriptions", nil, withBearer(a.APIKey))
		expectError(t, r, http.StatusBadRequest, "AUDIO_FILE_MISSING")
	})

	t.Run("AudioDurationUnknown", func(t *testing.T) {
		expectError(t, a.Upload(t, Upload{Filename: "header-only.wav", Data: WAVHeaderOnly()}), http.StatusBadRequest, "AUDIO_DURATION_UNKNOWN")
		expectError(t, a.Upload(t, Upload{Filename: "no-data-chunk.wav", Data: WAVNoDataChunk()}), http.StatusBadRequest, "AUDIO_DURATION_UNKNOWN")
	})

	t.Run("InvalidMetadataJSON", func(t *testing.T) {
		for _, m := range []string{`{"a":`, `not json`, `[1,2,3]`, `"a string"`, `42`, `null`, `true`, `{"a":1} trailing`} {
			r := a.Upload(t, Upload{Filename: "m.wav", Data: MakeWAV(0.25, 1, false), Metadata: strp(m)})
			if r.Status != http.StatusBadRequest || r.ErrCode() != "INVALID_METADATA_JSON" {
				t.Errorf("metadata %q: %s; want 400 INVALID_METADATA_JSON", m, r)
			}
		}
	})

	t.Run("Keyterms", func(t *testing.T) { s.testKeyterms(t, a) })

	t.Run("InvalidKeyterms", func(t *testing.T) {
		long := strings.Repeat("x", 51)
		many := make([]string, 101)
		for i := range many {
			many[i] = "term" + strconv.Itoa(i)
		}
		manyJSON, _ := json.Marshal(many)
		for _, k := range []string{
			`not json`, `{"a":1}`, `"refund"`, `42`, `null`, `[1, "refund"]`, `["refund", null]`, `[["nested"]]`, `["refund"] trailing`,
			`[""]`, `["   "]`, `["` + long + `"]`, `["one two three four five six seven"]`, string(manyJSON), `["tab\tinside"]`,
		} {
			r := a.Upload(t, Upload{Filename: "k.wav", Data: MakeWAV(0.25, 1, false), Keyterms: strp(k)})
			if r.Status != http.StatusBadRequest || r.ErrCode() != "INVALID_KEYTERMS" {
				t.Errorf("keyterms %.60q: %s; want 400 INVALID_KEYTERMS", k, r)
			}
		}
		// The boundaries are allowed: 100 terms, 50 characters, 6 words.
		edge := append(many[:98:98], strings.Repeat("y", 50), "one two three four five six")
		edgeJSON, _ := json.Marshal(edge)
		expectStatus(t, a.Upload(t, Upload{Filename: "k.wav", Data: MakeWAV(0.25, 1, false), Keyterms: strp(string(edgeJSON))}), http.StatusAccepted)
	})

	t.Run("FileTooLarge", func(t *testing.T) {
		r := a.Upload(t, Upload{Filename: "big.wav", Data: SizedWAV(maxUploadBytes+1, 2)})
		expectError(t, r, http.StatusRequestEntityTooLarge, "FILE_TOO_LARGE")
		// Exactly 10,485,760 bytes is within the limit: accepted, or refused for quota only.
		data := SizedWAV(maxUploadBytes, 2)
		fileMin := round2(float64(maxUploadBytes-44) / float64(WAVSampleRate*4))
		used := a.Usage(t).Used
		r = a.Upload(t, Upload{Filename: "limit.wav", Data: data})
		if fileMin+used <= s.opts.QuotaMinutes {
			expectStatus(t, r, http.StatusAccepted)
		} else {
			expectError(t, r, http.StatusTooManyRequests, "QUOTA_EXCEEDED")
		}
	})

	t.Run("UnsupportedAudioFormat", func(t *testing.T) {
		expectError(t, a.Upload(t, Upload{Filename: "call.wav", ContentType: "audio/wav", Data: []byte("this is a text file, not audio at all\n")}), http.StatusUnsupportedMediaType, "UNSUPPORTED_AUDIO_FORMAT")
		expectError(t, a.Upload(t, Upload{Filename: "call.mp3", ContentType: "audio/mpeg", Data: bytes.Repeat([]byte{0x42}, 4096)}), http.StatusUnsupportedMediaType, "UNSUPPORTED_AUDIO_FORMAT")
		for _, f := range []string{"tone-8k-mono-0.5s.ogg", "tone-8k-mono-0.5s.flac"} {
			r := a.Upload(t, Upload{Filename: "call.wav", ContentType: "audio/wav", Data: s.fixture(t, f)})
			if r.Status != http.StatusUnsupportedMediaType || r.ErrCode() != "UNSUPPORTED_AUDIO_FORMAT" {
				t.Errorf("%s: %s; want 415 UNSUPPORTED_AUDIO_FORMAT", f, r)
			}
		}
	})

	t.Run("FormatByContent", func(t *testing.T) {
		// A WAV named .mp3 with an MP3 content type is a WAV.
		id := a.MustUpload(t, Upload{Filename: "really-a-wav.mp3", ContentType: "audio/mpeg", Data: MakeWAV(0.5, 1, false)})
		if id != "" {
			g := s.mustSucceed(t, a, id)
			if d, _ := num(g.Body["result"].(map[string]any)["duration_seconds"]); math.Abs(d-0.5) > 0.01 {
				t.Errorf("%s: duration %v, want 0.5", g, d)
			}
		}
	})
}

// testUploadFixtures: every MP3 fixture (MPEG-1/2/2.5, ID3v2, VBR, no Info
// frame) and the WAV fixtures are accepted and transcribed with the right duration.
func (s *suite) testUploadFixtures(t *testing.T) {
	a := s.newAccount(t)
	durRE := regexp.MustCompile(`-([0-9.]+)s\.(mp3|wav)$`)
	for _, f := range []string{
		"id3v2-noise-8k-mono-mpeg25-24k-3.0s.mp3",
		"noinfo-8k-mono-mpeg25-16k-2.0s.mp3",
		"tone-16k-mono-mpeg2-48k-1.5s.mp3",
		"tone-44k1-stereo-mpeg1-128k-1.0s.mp3",
		"tone-8k-mono-mpeg25-24k-2.0s.mp3",
		"vbr-noinfo-16k-mono-mpeg2-1.0s.mp3",
		"tone-8k-mono-s16-0.5s.wav",
		"tone-16k-stereo-s24-0.25s.wav",
		"mp3-content-named.wav",
	} {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			id := a.MustUpload(t, Upload{Filename: f, Data: s.fixture(t, f)})
			if id == "" {
				return
			}
			g := s.mustSucceed(t, a, id)
			res := g.Body["result"].(map[string]any)
			d, _ := num(res["duration_seconds"])
			if m := durRE.FindStringSubmatch(f); m != nil {
				want, _ := strconv.ParseFloat(m[1], 64)
				if math.Abs(d-want) > 0.2 {
					t.Errorf("%s: duration_seconds %v, want about %v", g, d, want)
				}
			} else if d <= 0 {
				t.Errorf("%s: duration_seconds %v", g, d)
			}
			item := onlyItem(t, a.List(t, url.Values{"job_id": {id}}))
			if item != nil {
				if sec, _ := num(item["audio_seconds"]); sec <= 0 || math.Abs(sec-d) > 0.2 {
					t.Errorf("%s: list audio_seconds %v vs result duration %v", f, item["audio_seconds"], d)
				}
			}
		})
	}
}

// speakerAliases maps speaker_id -> alias, failing on an id with two aliases.
func speakerAliases(t testing.TB, r *Response, res map[string]any) map[int]string {
	t.Helper()
	out := map[int]string{}
	segs, _ := res["transcript"].([]any)
	for _, sv := range segs {
		seg, _ := sv.(map[string]any)
		id, _ := num(seg["speaker_id"])
		alias, _ := seg["speaker_alias"].(string)
		if prev, ok := out[int(id)]; ok && prev != alias {
			t.Errorf("%s: speaker %v has aliases %q and %q", r, id, prev, alias)
		}
		out[int(id)] = alias
	}
	return out
}

func hasSpeech(res map[string]any) bool {
	segs, _ := res["transcript"].([]any)
	for _, sv := range segs {
		seg, _ := sv.(map[string]any)
		if txt, _ := seg["text"].(string); strings.TrimSpace(txt) != "" {
			return true
		}
	}
	return false
}

// onlyItem requires a 200 list with exactly one entry and returns it.
func onlyItem(t testing.TB, r *Response) map[string]any {
	t.Helper()
	items := listItems(t, r)
	if len(items) != 1 {
		t.Errorf("%s: want exactly one item", r)
		return nil
	}
	return items[0]
}

// listItems requires a 200 list body and returns its entries, each checked
// against the job summary rules.
func listItems(t testing.TB, r *Response) []map[string]any {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Errorf("%s: want 200", r)
		return nil
	}
	arr, ok := r.Body["transcriptions"].([]any)
	if !ok {
		t.Errorf("%s: transcriptions is not an array", r)
		return nil
	}
	if nc, present := r.Body["next_cursor"]; !present {
		t.Errorf("%s: next_cursor missing (string or null)", r)
	} else if _, isStr := nc.(string); nc != nil && !isStr {
		t.Errorf("%s: next_cursor is neither string nor null", r)
	}
	out := make([]map[string]any, 0, len(arr))
	for _, v := range arr {
		item, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: entry is not an object", r)
			continue
		}
		checkSummary(t, r, item)
		out = append(out, item)
	}
	return out
}

// checkSummary applies the Job summary rules to a list entry.
func checkSummary(t testing.TB, r *Response, item map[string]any) {
	t.Helper()
	checkUUID(t, r, "job_id", item["job_id"])
	typ, _ := item["type"].(string)
	switch typ {
	case "transcription", "summary", "tags":
	default:
		t.Errorf("%s: entry type %q", r, typ)
	}
	switch st, _ := item["status"].(string); st {
	case "queued", "processing", "succeeded", "failed":
	default:
		t.Errorf("%s: entry status %q", r, st)
	}
	for _, k := range []string{"original_filename", "language"} {
		v, ok := item[k]
		if !ok {
			t.Errorf("%s: entry lacks %s (string or null)", r, k)
		} else if _, isStr := v.(string); v != nil && !isStr {
			t.Errorf("%s: entry %s is neither string nor null", r, k)
		}
	}
	sec, ok := num(item["audio_seconds"])
	if !ok || sec < 0 {
		t.Errorf("%s: entry audio_seconds %v", r, item["audio_seconds"])
	}
	if typ == "summary" || typ == "tags" {
		if sec != 0 {
			t.Errorf("%s: derived entry audio_seconds %v, want 0", r, sec)
		}
		if item["original_filename"] != nil {
			t.Errorf("%s: derived entry original_filename %v, want null", r, item["original_filename"])
		}
	}
	c := checkTime(t, r, "created_at", item["created_at"])
	u := checkTime(t, r, "updated_at", item["updated_at"])
	if u.Before(c) {
		t.Errorf("%s: updated_at %v before created_at %v", r, u, c)
	}
}

// testKeyterms sends a per-job vocabulary: the job read echoes the terms
// (trimmed, case-insensitive duplicates folded, in the order sent), and the
// result's meta_data.keyterms accounts for every term: applied, or each of its
// words reported unknown, unless the engine says it cannot use them. A job
// without keyterms has no meta_data; blank and [] mean none.
func (s *suite) testKeyterms(t *testing.T, a *Account) {
	terms := `["refund", " Northwind Energy ", "REFUND", "charged twice"]`
	id := a.MustUpload(t, Upload{Filename: "keyterms.wav", Data: MakeWAV(1, 2, false), Keyterms: &terms})
	if id == "" {
		t.FailNow()
	}
	g := s.mustSucceed(t, a, id)
	want := []any{"refund", "Northwind Energy", "charged twice"}
	if got, _ := g.Body["keyterms"].([]any); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: keyterms echoed as %v, want %v", g, g.Body["keyterms"], want)
	}
	res, _ := g.Body["result"].(map[string]any)
	md, _ := res["meta_data"].(map[string]any)
	kt, _ := md["keyterms"].(map[string]any)
	if kt == nil {
		t.Fatalf("%s: result.meta_data.keyterms missing for a job with keyterms", g)
	}
	method, _ := kt["method"].(string)
	applied, okA := kt["applied"].([]any)
	unknown, okU := kt["unknown_words"].([]any)
	if method == "" || !okA || !okU {
		t.Fatalf("%s: meta_data.keyterms wants method, applied and unknown_words arrays", g)
	}
	if method != "not_supported" {
		isApplied, isUnknown := map[string]bool{}, map[string]bool{}
		for _, v := range applied {
			isApplied[v.(string)] = true
		}
		for _, v := range unknown {
			isUnknown[v.(string)] = true
		}
		for _, term := range want {
			if isApplied[term.(string)] {
				continue
			}
			for _, w := range strings.Fields(strings.ToLower(term.(string))) {
				if !isUnknown[w] {
					t.Errorf("%s: term %q is neither applied nor reported unknown (%q): dropped silently", g, term, w)
				}
			}
		}
	}

	for _, none := range []*string{nil, strp(""), strp("  "), strp("[]")} {
		id := a.MustUpload(t, Upload{Filename: "no-keyterms.wav", Data: MakeWAV(0.5, 1, false), Keyterms: none})
		if id == "" {
			continue
		}
		g := s.mustSucceed(t, a, id)
		if _, ok := g.Body["keyterms"]; ok {
			t.Errorf("%s: a job without keyterms shows keyterms", g)
		}
		if res, _ := g.Body["result"].(map[string]any); res != nil {
			if _, ok := res["meta_data"]; ok {
				t.Errorf("%s: a job without keyterms has meta_data", g)
			}
		}
	}
}
