package awstranscribe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/transcribe"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
)

const (
	region = "us-east-1"
	bucket = "callscribe-audio"
)

// fakeJob is the server-side state of one Transcribe job. Successive
// GetTranscriptionJob calls walk through statuses (the last one sticks); when
// it first reports COMPLETED the fake writes output to the job's OutputKey in
// S3, as Transcribe does.
type fakeJob struct {
	input         map[string]any
	statuses      []string
	gets          int
	failureReason string
	languageCode  string
	output        []byte
	written       bool
}

// fakeTranscribe speaks Transcribe's JSON 1.1 protocol: POST / with
// X-Amz-Target: Transcribe.<Operation>, errors as a 400 with a __type.
type fakeTranscribe struct {
	*httptest.Server
	t  *testing.T
	s3 *awss3.Client

	mu      sync.Mutex
	jobs    map[string]*fakeJob
	next    fakeJob // script of the next job StartTranscriptionJob creates
	calls   []string
	auth    []string
	deleted []string
	// raceStart makes StartTranscriptionJob behave as if another delivery had
	// started the job a moment earlier: the job exists and the call conflicts.
	raceStart bool
	// startErr, when set, is the error type StartTranscriptionJob answers with.
	startErr string
}

func newFakeTranscribe(t *testing.T, s3 *awss3.Client) *fakeTranscribe {
	f := &fakeTranscribe{t: t, s3: s3, jobs: map[string]*fakeJob{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeTranscribe) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "Transcribe.")
	var in map[string]any
	body, _ := io.ReadAll(r.Body)
	if !ok || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-amz-json-1.1" || json.Unmarshal(body, &in) != nil {
		writeError(w, 400, "SerializationException", "bad request")
		return
	}
	f.calls = append(f.calls, op)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	name, _ := in["TranscriptionJobName"].(string)
	switch op {
	case "StartTranscriptionJob":
		if f.startErr != "" {
			writeError(w, 400, f.startErr, "refused by the fake")
			return
		}
		if f.raceStart {
			j := f.next
			j.input = in
			f.jobs[name] = &j
		}
		if _, exists := f.jobs[name]; exists {
			writeError(w, 400, "ConflictException", "The requested job name already exists. Use a different job name.")
			return
		}
		j := f.next
		j.input = in
		f.jobs[name] = &j
		writeJSON(w, map[string]any{"TranscriptionJob": map[string]any{"TranscriptionJobName": name, "TranscriptionJobStatus": "QUEUED"}})
	case "GetTranscriptionJob":
		j, ok := f.jobs[name]
		if !ok {
			writeError(w, 400, "NotFoundException", "The requested job couldn't be found. Check the job name and try your request again.")
			return
		}
		status := j.statuses[min(j.gets, len(j.statuses)-1)]
		j.gets++
		key, _ := j.input["OutputKey"].(string)
		if status == "COMPLETED" && !j.written && j.output != nil {
			_, err := f.s3.PutObject(f.t.Context(), &awss3.PutObjectInput{
				Bucket: aws.String(j.input["OutputBucketName"].(string)), Key: aws.String(key), Body: bytes.NewReader(j.output),
			})
			if err != nil {
				f.t.Errorf("fake Transcribe writing output: %v", err)
			}
			j.written = true
		}
		job := map[string]any{
			"TranscriptionJobName": name, "TranscriptionJobStatus": status,
			"CreationTime": float64(time.Now().Unix()),
			"Media":        j.input["Media"], "MediaFormat": j.input["MediaFormat"],
		}
		if j.languageCode != "" {
			job["LanguageCode"] = j.languageCode
		}
		if status == "FAILED" {
			job["FailureReason"] = j.failureReason
		}
		if status == "COMPLETED" {
			job["Transcript"] = map[string]any{"TranscriptFileUri": "https://s3." + region + ".amazonaws.com/" + bucket + "/" + key}
		}
		writeJSON(w, map[string]any{"TranscriptionJob": job})
	case "DeleteTranscriptionJob":
		if _, ok := f.jobs[name]; !ok {
			writeError(w, 400, "NotFoundException", "The requested job couldn't be found.")
			return
		}
		delete(f.jobs, name)
		f.deleted = append(f.deleted, name)
		writeJSON(w, map[string]any{})
	default:
		writeError(w, 400, "UnknownOperationException", op)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, errType, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.transcribe#" + errType, "Message": msg})
}

func (f *fakeTranscribe) callsSoFar() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// env is a Transcriber wired to a fake Transcribe and an in-process S3
// (gofakes3) through the real SDK clients.
type env struct {
	tr    *Transcriber
	fake  *fakeTranscribe
	s3    *awss3.Client
	calls int
}

func awsConfig(t *testing.T, endpoint string) aws.Config {
	// AWS_CA_BUNDLE (set on these machines) must not leak into anything that
	// loads shared config; the config is built by hand for the same reason.
	t.Setenv("AWS_CA_BUNDLE", "")
	return aws.Config{
		Region:           region,
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		BaseEndpoint:     aws.String(endpoint),
		HTTPClient:       &http.Client{Timeout: 10 * time.Second},
		RetryMaxAttempts: 1,
	}
}

func newEnv(t *testing.T, agentChannel int) *env {
	t.Helper()
	s3srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(s3srv.Close)
	s3c := awss3.NewFromConfig(awsConfig(t, s3srv.URL), func(o *awss3.Options) { o.UsePathStyle = true })
	if _, err := s3c.CreateBucket(t.Context(), &awss3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	fake := newFakeTranscribe(t, s3c)
	client := transcribe.NewFromConfig(awsConfig(t, fake.URL))
	tr := New(client, NewS3Output(s3c, bucket), Config{Bucket: bucket, AgentChannel: agentChannel})
	return &env{tr: tr, fake: fake, s3: s3c}
}

// wav returns a 16-bit 8 kHz PCM WAV of silence.
func wav(channels int, seconds float64) []byte {
	samples := make([][]int16, channels)
	for i := range samples {
		samples[i] = make([]int16, int(seconds*8000))
	}
	return decode.EncodeWAV(8000, samples...)
}

// Transcribe output fixtures, in the service's format: times as strings,
// punctuation without times.
func word(content, start, end string) map[string]any {
	return map[string]any{"type": "pronunciation", "start_time": start, "end_time": end,
		"alternatives": []any{map[string]any{"confidence": "0.99", "content": content}}}
}

// scored is a word with its own confidence; "" leaves the confidence out.
func scored(content, start, end, confidence string) map[string]any {
	w := word(content, start, end)
	alt := w["alternatives"].([]any)[0].(map[string]any)
	if confidence == "" {
		delete(alt, "confidence")
	} else {
		alt["confidence"] = confidence
	}
	return w
}

func punct(content string) map[string]any {
	return map[string]any{"type": "punctuation", "alternatives": []any{map[string]any{"confidence": "0.0", "content": content}}}
}

func labelled(label string, items []any) []any {
	out := make([]any, len(items))
	for i, it := range items {
		m := map[string]any{"channel_label": label}
		for k, v := range it.(map[string]any) {
			m[k] = v
		}
		out[i] = m
	}
	return out
}

func stereoOutput() []byte {
	ch0 := []any{
		word("Thanks", "0.5", "0.8"), word("for", "0.8", "0.9"), word("calling", "0.9", "1.3"), punct("."),
		word("How", "1.4", "1.6"), scored("can", "1.6", "1.8", "0.5"), scored("I", "1.8", "1.9", ""), word("help", "1.9", "2.2"), punct("?"),
		word("Let", "6.5", "6.7"), word("me", "6.7", "6.9"), word("check", "6.9", "7.2"), punct("."),
	}
	ch1 := []any{
		word("I", "2.8", "2.9"), word("was", "2.9", "3.1"), word("charged", "3.1", "3.5"), word("twice", "3.5", "3.9"),
		// 1.6 s of silence: a new utterance without punctuation.
		word("this", "5.5", "5.7"), word("month", "5.7", "6.0"), punct("."),
	}
	out, _ := json.Marshal(map[string]any{
		"jobName": "x", "accountId": "123456789012", "status": "COMPLETED",
		"results": map[string]any{
			"transcripts": []any{map[string]any{"transcript": "Thanks for calling. How can I help? ..."}},
			"channel_labels": map[string]any{
				"number_of_channels": 2,
				"channels": []any{
					map[string]any{"channel_label": "ch_0", "items": ch0},
					map[string]any{"channel_label": "ch_1", "items": ch1},
				},
			},
			// Real output repeats every item here with its channel label; it must
			// not be counted twice.
			"items": append(labelled("ch_0", ch0), labelled("ch_1", ch1)...),
		},
	})
	return out
}

func monoOutput() []byte {
	out, _ := json.Marshal(map[string]any{
		"jobName": "x", "accountId": "123456789012", "status": "COMPLETED",
		"results": map[string]any{
			"language_code":           "es-US",
			"language_identification": []any{map[string]any{"code": "es-US", "score": "0.97"}},
			"transcripts":             []any{map[string]any{"transcript": "Hola, buenos días. Quiero cancelar."}},
			"items": []any{
				word("Hola", "0.2", "0.5"), punct(","), word("buenos", "0.6", "0.9"), word("días", "0.9", "1.2"), punct("."),
				word("Quiero", "1.5", "1.8"), word("cancelar", "1.8", "2.4"), punct("."),
			},
			"audio_segments": []any{map[string]any{"id": 0, "transcript": "Hola, buenos días. Quiero cancelar.", "start_time": "0.2", "end_time": "2.4", "items": []int{0, 1, 2, 3, 4, 5, 6, 7}}},
		},
	})
	return out
}

func (e *env) transcribe(t *testing.T, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	t.Helper()
	e.calls++
	return e.tr.Transcribe(t.Context(), req)
}

func wantPending(t *testing.T, res *callscribe.TranscriptionResult, err error) {
	t.Helper()
	var p *callscribe.Pending
	if !errors.As(err, &p) || res != nil {
		t.Fatalf("want *Pending, got %v, %v", res, err)
	}
	if p.CheckAfter != 15*time.Second {
		t.Errorf("CheckAfter = %v, want 15s", p.CheckAfter)
	}
}

func (e *env) objectExists(t *testing.T, key string) bool {
	t.Helper()
	_, err := e.s3.HeadObject(t.Context(), &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	return err == nil
}

func TestStereoStartPendingCompleted(t *testing.T) {
	e := newEnv(t, 0)
	e.fake.next = fakeJob{statuses: []string{"QUEUED", "IN_PROGRESS", "COMPLETED"}, languageCode: "en-US", output: stereoOutput()}
	req := callscribe.TranscriptionRequest{JobID: "job_01HX", AudioKey: "audio/job_01HX", Audio: wav(2, 12.5), Format: callscribe.FormatWAV, Language: "en"}

	res, err := e.transcribe(t, req)
	wantPending(t, res, err)
	start := e.fake.jobs["callscribe-job_01HX"].input
	want := map[string]any{
		"TranscriptionJobName": "callscribe-job_01HX",
		"Media":                map[string]any{"MediaFileUri": "s3://" + bucket + "/audio/job_01HX"},
		"MediaFormat":          "wav",
		"LanguageCode":         "en-US",
		"OutputBucketName":     bucket,
		"OutputKey":            "transcribe-output/callscribe-job_01HX.json",
		"Settings":             map[string]any{"ChannelIdentification": true},
	}
	if !reflect.DeepEqual(start, want) {
		t.Errorf("StartTranscriptionJob input\n got %v\nwant %v", start, want)
	}
	for _, a := range e.fake.auth {
		if !strings.Contains(a, "Credential=AKIDTEST/") || !strings.Contains(a, "/"+region+"/transcribe/aws4_request") {
			t.Errorf("Authorization = %q", a)
		}
	}

	res, err = e.transcribe(t, req) // QUEUED
	wantPending(t, res, err)
	res, err = e.transcribe(t, req) // IN_PROGRESS
	wantPending(t, res, err)
	res, err = e.transcribe(t, req) // COMPLETED
	if err != nil {
		t.Fatal(err)
	}
	wantSegs := []callscribe.Segment{
		{Text: "Thanks for calling.", TimeStart: 0.5, TimeEnd: 1.3, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "How can I help?", TimeStart: 1.4, TimeEnd: 2.2, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "I was charged twice", TimeStart: 2.8, TimeEnd: 3.9, SpeakerID: 1, SpeakerAlias: "User"},
		{Text: "this month.", TimeStart: 5.5, TimeEnd: 6.0, SpeakerID: 1, SpeakerAlias: "User"},
		{Text: "Let me check.", TimeStart: 6.5, TimeEnd: 7.2, SpeakerID: 0, SpeakerAlias: "Agent"},
	}
	if got := withoutWords(res.Transcript); !reflect.DeepEqual(got, wantSegs) {
		t.Errorf("segments\n got %+v\nwant %+v", got, wantSegs)
	}
	// Each segment's words are its items, with their times and confidences;
	// a word without a confidence has none and does not count in the mean.
	help := res.Transcript[1]
	wantWords := []callscribe.Word{
		{Text: "How", Start: 1.4, End: 1.6, Confidence: ptr(0.99)},
		{Text: "can", Start: 1.6, End: 1.8, Confidence: ptr(0.5)},
		{Text: "I", Start: 1.8, End: 1.9},
		{Text: "help", Start: 1.9, End: 2.2, Confidence: ptr(0.99)},
	}
	if !reflect.DeepEqual(help.Words, wantWords) {
		t.Errorf("words of %q\n got %s\nwant %s", help.Text, fmtWords(help.Words), fmtWords(wantWords))
	}
	if help.Confidence == nil || math.Abs(*help.Confidence-(0.99+0.5+0.99)/3) > 1e-9 {
		t.Errorf("segment confidence %v, want the mean of 0.99, 0.5, 0.99", help.Confidence)
	}
	for _, seg := range res.Transcript {
		if n := len(strings.Fields(seg.Text)); len(seg.Words) != n {
			t.Errorf("%q has %d words, want %d", seg.Text, len(seg.Words), n)
		}
	}
	if w := res.Transcript[3].Words; len(w) != 2 || w[0].Text != "this" || w[1].Text != "month" || w[1].End != 6.0 {
		t.Errorf("words of %q: %s", res.Transcript[3].Text, fmtWords(w))
	}
	if res.WordsCount == nil || *res.WordsCount != 16 {
		t.Errorf("words_count = %v, want 16", res.WordsCount)
	}
	if res.Language == nil || *res.Language != "en-US" {
		t.Errorf("language = %v, want en-US (from the job)", res.Language)
	}
	if res.DurationSeconds != 12.5 {
		t.Errorf("duration = %v, want the probed 12.5", res.DurationSeconds)
	}

	wantCalls := []string{"GetTranscriptionJob", "StartTranscriptionJob", "GetTranscriptionJob", "GetTranscriptionJob", "GetTranscriptionJob", "DeleteTranscriptionJob"}
	if got := e.fake.callsSoFar(); !reflect.DeepEqual(got, wantCalls) {
		t.Errorf("calls = %v\nwant %v", got, wantCalls)
	}
	if e.objectExists(t, "transcribe-output/callscribe-job_01HX.json") {
		t.Error("the output object is still in the bucket")
	}
	if !reflect.DeepEqual(e.fake.deleted, []string{"callscribe-job_01HX"}) {
		t.Errorf("deleted jobs = %v", e.fake.deleted)
	}
}

func TestMonoIdentifiesLanguageWithoutChannels(t *testing.T) {
	e := newEnv(t, 1)
	e.fake.next = fakeJob{statuses: []string{"COMPLETED"}, languageCode: "es-US", output: monoOutput()}
	req := callscribe.TranscriptionRequest{JobID: "job-mono", AudioKey: "audio/job-mono", Audio: wav(1, 3), Format: callscribe.FormatWAV}

	res, err := e.transcribe(t, req)
	wantPending(t, res, err)
	start := e.fake.jobs["callscribe-job-mono"].input
	if start["IdentifyLanguage"] != true || start["LanguageCode"] != nil {
		t.Errorf("no hint should identify the language: %v", start)
	}
	if !reflect.DeepEqual(start["Settings"], map[string]any{"ChannelIdentification": false}) {
		t.Errorf("mono audio must not ask for channel identification: Settings = %v", start["Settings"])
	}

	res, err = e.transcribe(t, req)
	if err != nil {
		t.Fatal(err)
	}
	// AGENT_CHANNEL=1, so mono's only channel 0 is the User.
	wantSegs := []callscribe.Segment{
		{Text: "Hola, buenos días.", TimeStart: 0.2, TimeEnd: 1.2, SpeakerID: 0, SpeakerAlias: "User"},
		{Text: "Quiero cancelar.", TimeStart: 1.5, TimeEnd: 2.4, SpeakerID: 0, SpeakerAlias: "User"},
	}
	if got := withoutWords(res.Transcript); !reflect.DeepEqual(got, wantSegs) {
		t.Errorf("segments\n got %+v\nwant %+v", got, wantSegs)
	}
	if *res.WordsCount != 5 || res.Language == nil || *res.Language != "es-US" || res.DurationSeconds != 3 {
		t.Errorf("words %d, language %v, duration %v", *res.WordsCount, res.Language, res.DurationSeconds)
	}
	if e.objectExists(t, "transcribe-output/callscribe-job-mono.json") {
		t.Error("the output object is still in the bucket")
	}
}

func TestDurationFallsBackToLastWordWithoutProbe(t *testing.T) {
	e := newEnv(t, 0)
	e.fake.next = fakeJob{statuses: []string{"COMPLETED"}, output: monoOutput()}
	req := callscribe.TranscriptionRequest{JobID: "j", AudioKey: "a", Format: callscribe.FormatMP3, Language: "es"}
	res, err := e.transcribe(t, req)
	wantPending(t, res, err)
	if f := e.fake.jobs["callscribe-j"].input; f["MediaFormat"] != "mp3" || f["LanguageCode"] != "es-US" {
		t.Errorf("start input = %v", f)
	}
	if res, err = e.transcribe(t, req); err != nil {
		t.Fatal(err)
	}
	if res.DurationSeconds != 2.4 {
		t.Errorf("duration = %v, want 2.4 (end of the last word)", res.DurationSeconds)
	}
}

func TestConflictOnStartChecksTheExistingJob(t *testing.T) {
	e := newEnv(t, 0)
	e.fake.raceStart = true
	e.fake.next = fakeJob{statuses: []string{"IN_PROGRESS"}}
	req := callscribe.TranscriptionRequest{JobID: "job-race", AudioKey: "a", Audio: wav(2, 1), Format: callscribe.FormatWAV, Language: "en-GB"}
	res, err := e.transcribe(t, req)
	wantPending(t, res, err)
	want := []string{"GetTranscriptionJob", "StartTranscriptionJob", "GetTranscriptionJob"}
	if got := e.fake.callsSoFar(); !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
	if e.fake.jobs["callscribe-job-race"].gets != 1 {
		t.Error("the existing job was not checked")
	}
}

func TestCompletedWithoutOutputStartsAgain(t *testing.T) {
	// An earlier delivery read and deleted the output, but its result was not
	// stored (the worker died): the job must be transcribed again, not failed.
	e := newEnv(t, 0)
	e.fake.jobs["callscribe-job-lost"] = &fakeJob{statuses: []string{"COMPLETED"}, input: map[string]any{"OutputKey": "transcribe-output/callscribe-job-lost.json"}}
	e.fake.next = fakeJob{statuses: []string{"IN_PROGRESS"}}
	res, err := e.transcribe(t, callscribe.TranscriptionRequest{JobID: "job-lost", AudioKey: "a", Audio: wav(1, 1), Format: callscribe.FormatWAV})
	wantPending(t, res, err)
	want := []string{"GetTranscriptionJob", "DeleteTranscriptionJob", "StartTranscriptionJob"}
	if got := e.fake.callsSoFar(); !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
}

func TestFailedJobMapping(t *testing.T) {
	for _, tc := range []struct {
		reason, code string
	}{
		{"The media format provided does not match the detected media format. Check the media format and try your request again.", callscribe.JobErrBadAudio},
		{"Unsupported audio format: the file could not be decoded.", callscribe.JobErrBadAudio},
		{"Internal service error while transcribing.", callscribe.JobErrProviderError},
	} {
		t.Run(tc.code, func(t *testing.T) {
			e := newEnv(t, 0)
			e.fake.jobs["callscribe-job-f"] = &fakeJob{statuses: []string{"FAILED"}, failureReason: tc.reason, input: map[string]any{}}
			_, err := e.transcribe(t, callscribe.TranscriptionRequest{JobID: "job-f", AudioKey: "a", Audio: wav(2, 1), Format: callscribe.FormatWAV})
			var je *callscribe.JobError
			if !errors.As(err, &je) {
				t.Fatalf("want *JobError, got %v", err)
			}
			if je.Code != tc.code || je.ProviderError == nil || je.ProviderError.Code != "transcribe_failed" || je.ProviderError.Message != tc.reason {
				t.Errorf("got %+v %+v", je, je.ProviderError)
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	t.Run("unsupported language never reaches Transcribe's start", func(t *testing.T) {
		e := newEnv(t, 0)
		_, err := e.transcribe(t, callscribe.TranscriptionRequest{JobID: "l", AudioKey: "a", Audio: wav(1, 1), Format: callscribe.FormatWAV, Language: "tlh"})
		var je *callscribe.JobError
		if !errors.As(err, &je) || je.Code != callscribe.JobErrUnsupportedLanguage {
			t.Fatalf("got %v", err)
		}
		if got := e.fake.callsSoFar(); !reflect.DeepEqual(got, []string{"GetTranscriptionJob"}) {
			t.Errorf("calls = %v", got)
		}
	})
	t.Run("BadRequest fails the job with the AWS code", func(t *testing.T) {
		e := newEnv(t, 0)
		e.fake.startErr = "BadRequestException"
		_, err := e.transcribe(t, callscribe.TranscriptionRequest{JobID: "b", AudioKey: "a", Audio: wav(1, 1), Format: callscribe.FormatWAV})
		var je *callscribe.JobError
		if !errors.As(err, &je) || je.Code != callscribe.JobErrProviderError || je.ProviderError.Code != "BadRequestException" || !strings.Contains(je.ProviderError.Message, "refused by the fake") {
			t.Fatalf("got %#v", err)
		}
	})
	t.Run("throttling is transient", func(t *testing.T) {
		e := newEnv(t, 0)
		e.fake.startErr = "LimitExceededException"
		_, err := e.transcribe(t, callscribe.TranscriptionRequest{JobID: "c", AudioKey: "a", Audio: wav(1, 1), Format: callscribe.FormatWAV})
		var je *callscribe.JobError
		var p *callscribe.Pending
		if err == nil || errors.As(err, &je) || errors.As(err, &p) {
			t.Fatalf("want a plain (retried) error, got %#v", err)
		}
	})
	t.Run("more than two channels is bad audio", func(t *testing.T) {
		e := newEnv(t, 0)
		_, err := e.transcribe(t, callscribe.TranscriptionRequest{JobID: "d", AudioKey: "a", Audio: wav(4, 1), Format: callscribe.FormatWAV})
		var je *callscribe.JobError
		if !errors.As(err, &je) || je.Code != callscribe.JobErrBadAudio {
			t.Fatalf("got %v", err)
		}
	})
}

func TestMalformedOutputIsAProviderError(t *testing.T) {
	e := newEnv(t, 0)
	e.fake.next = fakeJob{statuses: []string{"COMPLETED"}, output: []byte(`{"results":{"items":[{"type":"pronunciation","start_time":"soon","end_time":"1","alternatives":[{"content":"hi"}]}]}}`)}
	req := callscribe.TranscriptionRequest{JobID: "m", AudioKey: "a", Audio: wav(1, 1), Format: callscribe.FormatWAV}
	_, _ = e.transcribe(t, req)
	_, err := e.transcribe(t, req)
	var je *callscribe.JobError
	if !errors.As(err, &je) || je.ProviderError == nil || je.ProviderError.Code != "malformed_output" {
		t.Fatalf("got %#v", err)
	}
}

func TestJobName(t *testing.T) {
	if got := JobName("job_01HX-a.b"); got != "callscribe-job_01HX-a.b" {
		t.Errorf("plain id: %q", got)
	}
	a, b := JobName("acct/1"), JobName("acct:1")
	if a == b || !strings.HasPrefix(a, "callscribe-acct-1-") {
		t.Errorf("ids differing in disallowed characters share a name or lost their form: %q %q", a, b)
	}
	long := JobName(strings.Repeat("x", 500))
	if len(long) > 200 || long == JobName(strings.Repeat("x", 501)) {
		t.Errorf("long ids: %d chars, distinct=%v", len(long), long != JobName(strings.Repeat("x", 501)))
	}
}

func TestLanguageCode(t *testing.T) {
	for hint, want := range map[string]string{
		"en": "en-US", "EN": "en-US", "en-GB": "en-GB", "en_au": "en-AU", "en-CA": "en-US",
		"es": "es-US", "pt": "pt-BR", "pt-PT": "pt-PT", "ja": "ja-JP", "de": "de-DE", "sv": "sv-SE",
	} {
		if got, ok := LanguageCode(hint); !ok || string(got) != want {
			t.Errorf("LanguageCode(%q) = %q, %v; want %q", hint, got, ok, want)
		}
	}
	for _, hint := range []string{"", "tlh", "xx-YY"} {
		if got, ok := LanguageCode(hint); ok {
			t.Errorf("LanguageCode(%q) = %q, want unsupported", hint, got)
		}
	}
}

// A job already gone (an earlier delivery deleted it) is not an error: the
// SDK types no NotFoundException for Delete, so the code decides.
func TestDeleteOfAMissingJobIsNotAFailure(t *testing.T) {
	e := newEnv(t, 0)
	if err := e.tr.deleteJobStrict(t.Context(), "never-started"); err != nil {
		t.Fatalf("deleting a missing job: %v", err)
	}
	if calls := e.fake.callsSoFar(); len(calls) != 1 || calls[0] != "DeleteTranscriptionJob" {
		t.Fatalf("calls %v", calls)
	}
	e.fake.mu.Lock()
	e.fake.jobs["busy"] = &fakeJob{}
	e.fake.mu.Unlock()
	if err := e.tr.deleteJobStrict(t.Context(), "busy"); err != nil {
		t.Fatalf("deleting an existing job: %v", err)
	}
}

func ptr(v float64) *float64 { return &v }

// withoutWords is the segments without their words and confidences, for
// comparing text, times and speakers.
func withoutWords(segs []callscribe.Segment) []callscribe.Segment {
	out := make([]callscribe.Segment, len(segs))
	for i, s := range segs {
		s.Words, s.Confidence = nil, nil
		out[i] = s
	}
	return out
}

func fmtWords(words []callscribe.Word) string {
	var b strings.Builder
	for _, w := range words {
		c := "null"
		if w.Confidence != nil {
			c = strconv.FormatFloat(*w.Confidence, 'g', -1, 64)
		}
		fmt.Fprintf(&b, "[%s %.2f-%.2f %s] ", w.Text, w.Start, w.End, c)
	}
	return b.String()
}
