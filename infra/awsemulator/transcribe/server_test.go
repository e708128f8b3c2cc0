package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	transcribesdk "github.com/aws/aws-sdk-go-v2/service/transcribe"
	"github.com/aws/aws-sdk-go-v2/service/transcribe/types"
	smithy "github.com/aws/smithy-go"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/awstranscribe"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
)

const (
	region = "us-east-1"
	bucket = "callscribe-audio"
)

// env is a Server on an in-process S3 (gofakes3), reached through the real
// SDK clients.
type env struct {
	srv    *Server
	url    string
	s3     *awss3.Client
	client *transcribesdk.Client
}

// awsConfig is the local servers' SDK config without retries, so a test sees
// each answer as the server gave it.
func awsConfig(t *testing.T, endpoint string) aws.Config {
	t.Setenv("AWS_CA_BUNDLE", "")
	cfg := awstest.Config(endpoint)
	cfg.RetryMaxAttempts = 1
	return cfg
}

func newEnv(t *testing.T, engine callscribe.Transcriber, workers int) *env {
	t.Helper()
	s3srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(s3srv.Close)
	s3c := awss3.NewFromConfig(awsConfig(t, s3srv.URL), func(o *awss3.Options) { o.UsePathStyle = true })
	if _, err := s3c.CreateBucket(t.Context(), &awss3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	srv := New(s3c, engine, Config{Workers: workers, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &env{srv: srv, url: hs.URL, s3: s3c, client: transcribesdk.NewFromConfig(awsConfig(t, hs.URL))}
}

func (e *env) put(t *testing.T, key string, body []byte) {
	t.Helper()
	if _, err := e.s3.PutObject(t.Context(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) object(t *testing.T, key string) ([]byte, bool) {
	t.Helper()
	out, err := e.s3.GetObject(t.Context(), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, false
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b, true
}

// adapter is the project's aws-transcribe engine pointed at this server.
func (e *env) adapter(agentChannel int) *awstranscribe.Transcriber {
	return awstranscribe.New(e.client, awstranscribe.NewS3Output(e.s3, bucket), awstranscribe.Config{Bucket: bucket, AgentChannel: agentChannel})
}

// transcribe calls the adapter as the pipeline does: again after each
// *callscribe.Pending, until it returns something else.
func transcribe(t *testing.T, tr callscribe.Transcriber, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := tr.Transcribe(t.Context(), req)
		var p *callscribe.Pending
		if !errors.As(err, &p) {
			return res, err
		}
		if time.Now().After(deadline) {
			t.Fatal("the job is still pending after 15 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// toneWAV is 16-bit 8 kHz PCM with a different tone on each channel (never
// silent, so the test engine transcribes it).
func toneWAV(channels int, seconds float64) []byte {
	samples := make([][]int16, channels)
	for ch := range samples {
		samples[ch] = make([]int16, int(seconds*8000))
		for i := range samples[ch] {
			samples[ch][i] = int16(3000 * math.Sin(float64(i)*float64(ch+1)*2*math.Pi*300/8000))
		}
	}
	return decode.EncodeWAV(8000, samples...)
}

func TestAdapterTranscribesStereoWithTheTestEngine(t *testing.T) {
	for _, agent := range []int{0, 1} {
		t.Run(callscribe.SpeakerAlias(0, agent)+" on the left", func(t *testing.T) {
			e := newEnv(t, &testengine.Engine{}, 2)
			audio := toneWAV(2, 4)
			e.put(t, "audio/job_1", audio)
			req := callscribe.TranscriptionRequest{JobID: "job_1", AudioKey: "audio/job_1", Audio: audio, Format: callscribe.FormatWAV}
			res, err := transcribe(t, e.adapter(agent), req)
			if err != nil {
				t.Fatal(err)
			}
			// The test engine says Lines[ch] over the channel's share of the
			// audio: the left channel in the first 2 s, the right in the last 2 s.
			want := []callscribe.Segment{
				{Text: testengine.Lines[0], TimeStart: 0, TimeEnd: 2, SpeakerID: 0, SpeakerAlias: callscribe.SpeakerAlias(0, agent)},
				{Text: testengine.Lines[1], TimeStart: 2, TimeEnd: 4, SpeakerID: 1, SpeakerAlias: callscribe.SpeakerAlias(1, agent)},
			}
			if got := withoutWords(res.Transcript); !reflect.DeepEqual(got, want) {
				t.Errorf("segments\n got %+v\nwant %+v", got, want)
			}
			// The engine's words come through the output's items: its times
			// (to Transcribe's milliseconds) and its confidence.
			for _, s := range res.Transcript {
				fields := strings.Fields(s.Text)
				if len(s.Words) != len(fields) {
					t.Fatalf("%q has %d words", s.Text, len(s.Words))
				}
				step := (s.TimeEnd - s.TimeStart) / float64(len(fields))
				for i, w := range s.Words {
					if w.Text != fields[i] || math.Abs(w.Start-(s.TimeStart+step*float64(i))) > 0.0005 ||
						math.Abs(w.End-(s.TimeStart+step*float64(i+1))) > 0.0005 || w.Confidence == nil || *w.Confidence != testengine.WordConfidence {
						t.Errorf("word %d of %q: %+v", i, s.Text, w)
					}
				}
			}
			for _, s := range res.Transcript {
				if s.TimeStart < 0 || s.TimeEnd > res.DurationSeconds || s.TimeEnd < s.TimeStart {
					t.Errorf("segment %+v outside the audio's %v s", s, res.DurationSeconds)
				}
			}
			words := len(strings.Fields(testengine.Lines[0])) + len(strings.Fields(testengine.Lines[1]))
			if res.WordsCount == nil || *res.WordsCount != words {
				t.Errorf("words_count = %v, want %d", res.WordsCount, words)
			}
			if res.Language == nil || *res.Language != "en-US" {
				t.Errorf("language = %v, want the identified en-US", res.Language)
			}
			if res.DurationSeconds != 4 {
				t.Errorf("duration = %v, want 4", res.DurationSeconds)
			}
			// The adapter collected the output and deleted the job.
			if _, ok := e.object(t, awstranscribe.DefaultOutputPrefix+awstranscribe.JobName("job_1")+".json"); ok {
				t.Error("the output object is still in the bucket")
			}
			_, err = e.client.GetTranscriptionJob(t.Context(), &transcribesdk.GetTranscriptionJobInput{TranscriptionJobName: aws.String(awstranscribe.JobName("job_1"))})
			var nf *types.NotFoundException
			if !errors.As(err, &nf) {
				t.Errorf("the job record is still there: %v", err)
			}
		})
	}
}

func TestAdapterMonoAndLanguageHint(t *testing.T) {
	e := newEnv(t, &testengine.Engine{}, 1)
	audio := toneWAV(1, 3)
	e.put(t, "audio/mono", audio)
	res, err := transcribe(t, e.adapter(0), callscribe.TranscriptionRequest{JobID: "mono", AudioKey: "audio/mono", Audio: audio, Format: callscribe.FormatWAV, Language: "en-GB"})
	if err != nil {
		t.Fatal(err)
	}
	want := []callscribe.Segment{{Text: testengine.Lines[0], TimeStart: 0, TimeEnd: 3, SpeakerID: 0, SpeakerAlias: "Agent"}}
	if got := withoutWords(res.Transcript); !reflect.DeepEqual(got, want) {
		t.Errorf("segments\n got %+v\nwant %+v", got, want)
	}
	if res.Language == nil || *res.Language != "en-GB" {
		t.Errorf("language = %v, want the requested en-GB", res.Language)
	}
}

func TestAdapterFailures(t *testing.T) {
	t.Run("garbage media is bad audio", func(t *testing.T) {
		e := newEnv(t, &testengine.Engine{}, 1)
		garbage := []byte(strings.Repeat("this is not audio at all ", 100))
		e.put(t, "audio/garbage", garbage)
		_, err := transcribe(t, e.adapter(0), callscribe.TranscriptionRequest{JobID: "garbage", AudioKey: "audio/garbage", Audio: garbage, Format: callscribe.FormatWAV})
		var je *callscribe.JobError
		if !errors.As(err, &je) || je.Code != callscribe.JobErrBadAudio || je.ProviderError == nil || je.ProviderError.Code != "transcribe_failed" {
			t.Fatalf("want a bad_audio job error, got %#v", err)
		}
		if !strings.Contains(je.ProviderError.Message, "not WAV or MP3") {
			t.Errorf("failure reason %q", je.ProviderError.Message)
		}
	})
	t.Run("a language the engine lacks is unsupported", func(t *testing.T) {
		e := newEnv(t, &testengine.Engine{}, 1)
		audio := toneWAV(2, 1)
		e.put(t, "audio/fr", audio)
		_, err := transcribe(t, e.adapter(0), callscribe.TranscriptionRequest{JobID: "fr", AudioKey: "audio/fr", Audio: audio, Format: callscribe.FormatWAV, Language: "fr"})
		var je *callscribe.JobError
		if !errors.As(err, &je) || je.Code != callscribe.JobErrUnsupportedLanguage {
			t.Fatalf("want an unsupported_language job error, got %#v", err)
		}
	})
	t.Run("a missing media object is refused at start", func(t *testing.T) {
		e := newEnv(t, &testengine.Engine{}, 1)
		_, err := transcribe(t, e.adapter(0), callscribe.TranscriptionRequest{JobID: "gone", AudioKey: "audio/gone", Audio: toneWAV(1, 1), Format: callscribe.FormatWAV})
		var je *callscribe.JobError
		if !errors.As(err, &je) || je.ProviderError == nil || je.ProviderError.Code != "BadRequestException" {
			t.Fatalf("want the start's BadRequestException, got %#v", err)
		}
	})
}

// scriptEngine answers every request with fixed segments.
type scriptEngine struct {
	segments []callscribe.Segment
	language string
}

func (s *scriptEngine) Transcribe(_ context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	lang := s.language
	if req.Language != "" {
		lang = req.Language
	}
	return &callscribe.TranscriptionResult{Language: &lang, Transcript: s.segments}, nil
}

func (e *env) startJob(t *testing.T, name, key string, mutate func(*transcribesdk.StartTranscriptionJobInput)) (*transcribesdk.StartTranscriptionJobOutput, error) {
	t.Helper()
	in := &transcribesdk.StartTranscriptionJobInput{
		TranscriptionJobName: aws.String(name),
		Media:                &types.Media{MediaFileUri: aws.String("s3://" + bucket + "/" + key)},
		MediaFormat:          types.MediaFormatWav,
		OutputBucketName:     aws.String(bucket),
		OutputKey:            aws.String("out/" + name + ".json"),
		IdentifyLanguage:     aws.Bool(true),
		Settings:             &types.Settings{ChannelIdentification: aws.Bool(true)},
	}
	if mutate != nil {
		mutate(in)
	}
	return e.client.StartTranscriptionJob(t.Context(), in)
}

// wait polls a job until it is COMPLETED or FAILED.
func (e *env) wait(t *testing.T, name string) *types.TranscriptionJob {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err := e.client.GetTranscriptionJob(t.Context(), &transcribesdk.GetTranscriptionJobInput{TranscriptionJobName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		switch out.TranscriptionJob.TranscriptionJobStatus {
		case types.TranscriptionJobStatusCompleted, types.TranscriptionJobStatusFailed:
			return out.TranscriptionJob
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s after 15 s", name, out.TranscriptionJob.TranscriptionJobStatus)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestOutputJSONHasTranscribesShape(t *testing.T) {
	engine := &scriptEngine{language: "en", segments: []callscribe.Segment{
		// Out of time order on purpose: the output is in time order.
		{Text: "I was charged twice.", TimeStart: 3, TimeEnd: 5, SpeakerID: 1},
		{Text: "Hello, thanks for calling. How can I help?", TimeStart: 0.5, TimeEnd: 2.5, SpeakerID: 0},
	}}
	e := newEnv(t, engine, 1)
	e.put(t, "audio/shape", toneWAV(2, 6))
	started, err := e.startJob(t, "shape", "audio/shape", nil)
	if err != nil {
		t.Fatal(err)
	}
	if started.TranscriptionJob.TranscriptionJobStatus != types.TranscriptionJobStatusQueued {
		t.Errorf("start status = %s, want QUEUED", started.TranscriptionJob.TranscriptionJobStatus)
	}
	job := e.wait(t, "shape")
	if job.TranscriptionJobStatus != types.TranscriptionJobStatusCompleted {
		t.Fatalf("job %s: %s", job.TranscriptionJobStatus, aws.ToString(job.FailureReason))
	}
	if job.LanguageCode != types.LanguageCodeEnUs || aws.ToInt32(job.MediaSampleRateHertz) != 8000 || job.Transcript == nil ||
		!strings.HasSuffix(aws.ToString(job.Transcript.TranscriptFileUri), "/"+bucket+"/out/shape.json") ||
		job.StartTime == nil || job.CompletionTime == nil || job.CreationTime == nil || job.CompletionTime.Before(*job.CreationTime) {
		t.Errorf("job description %+v", job)
	}
	raw, ok := e.object(t, "out/shape.json")
	if !ok {
		t.Fatal("no output object")
	}
	var doc struct {
		JobName string `json:"jobName"`
		Status  string `json:"status"`
		Results struct {
			LanguageCode string `json:"language_code"`
			Transcripts  []struct {
				Transcript string `json:"transcript"`
			} `json:"transcripts"`
			ChannelLabels struct {
				Channels []struct {
					ChannelLabel string            `json:"channel_label"`
					Items        []json.RawMessage `json:"items"`
				} `json:"channels"`
				NumberOfChannels int `json:"number_of_channels"`
			} `json:"channel_labels"`
			Items []struct {
				ID           int    `json:"id"`
				Type         string `json:"type"`
				StartTime    string `json:"start_time"`
				EndTime      string `json:"end_time"`
				ChannelLabel string `json:"channel_label"`
				Alternatives []struct {
					Content string `json:"content"`
				} `json:"alternatives"`
			} `json:"items"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Results
	if doc.JobName != "shape" || doc.Status != "COMPLETED" || r.LanguageCode != "en-US" {
		t.Errorf("jobName %q status %q language_code %q", doc.JobName, doc.Status, r.LanguageCode)
	}
	if len(r.Transcripts) != 1 || r.Transcripts[0].Transcript != "Hello, thanks for calling. How can I help? I was charged twice." {
		t.Errorf("transcripts = %+v", r.Transcripts)
	}
	// Eight words share 0.5-2.5 s (0.25 s each); four share 3-5 s. w is a
	// pronunciation item, p a punctuation item.
	var got []string
	for i, it := range r.Items {
		if it.ID != i {
			t.Errorf("item %d has id %d", i, it.ID)
		}
		kind := map[string]string{"pronunciation": "w", "punctuation": "p"}[it.Type]
		got = append(got, strings.Join([]string{kind, it.Alternatives[0].Content, it.StartTime, it.EndTime, it.ChannelLabel}, " "))
	}
	want := []string{
		"w Hello 0.500 0.750 ch_0", "p ,   ch_0", "w thanks 0.750 1.000 ch_0", "w for 1.000 1.250 ch_0", "w calling 1.250 1.500 ch_0", "p .   ch_0",
		"w How 1.500 1.750 ch_0", "w can 1.750 2.000 ch_0", "w I 2.000 2.250 ch_0", "w help 2.250 2.500 ch_0", "p ?   ch_0",
		"w I 3.000 3.500 ch_1", "w was 3.500 4.000 ch_1", "w charged 4.000 4.500 ch_1", "w twice 4.500 5.000 ch_1", "p .   ch_1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("items\n got %q\nwant %q", got, want)
	}
	if n := r.ChannelLabels.NumberOfChannels; n != 2 || len(r.ChannelLabels.Channels) != 2 ||
		r.ChannelLabels.Channels[0].ChannelLabel != "ch_0" || len(r.ChannelLabels.Channels[0].Items) != 11 ||
		r.ChannelLabels.Channels[1].ChannelLabel != "ch_1" || len(r.ChannelLabels.Channels[1].Items) != 5 {
		t.Errorf("channel_labels = %+v", r.ChannelLabels)
	}

	// The adapter reads the same output into utterances split at sentence ends.
	res, err := transcribe(t, e.adapter(0), callscribe.TranscriptionRequest{JobID: "shape2", AudioKey: "audio/shape", Audio: toneWAV(2, 6), Format: callscribe.FormatWAV})
	if err != nil {
		t.Fatal(err)
	}
	wantSegs := []callscribe.Segment{
		{Text: "Hello, thanks for calling.", TimeStart: 0.5, TimeEnd: 1.5, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "How can I help?", TimeStart: 1.5, TimeEnd: 2.5, SpeakerID: 0, SpeakerAlias: "Agent"},
		{Text: "I was charged twice.", TimeStart: 3, TimeEnd: 5, SpeakerID: 1, SpeakerAlias: "User"},
	}
	if got := withoutWords(res.Transcript); !reflect.DeepEqual(got, wantSegs) {
		t.Errorf("adapter segments\n got %+v\nwant %+v", got, wantSegs)
	}
}

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

// A segment that carries its words has them written with their own times and
// confidences, not spread evenly; punctuation still attaches to its word.
func TestOutputUsesTheEnginesWordTimes(t *testing.T) {
	conf := func(v float64) *float64 { return &v }
	engine := &scriptEngine{language: "en", segments: []callscribe.Segment{{
		Text: "Hello, there.", TimeStart: 1, TimeEnd: 3,
		Words: []callscribe.Word{
			{Text: "Hello", Start: 1, End: 1.25, Confidence: conf(0.75)},
			{Text: "there", Start: 2.5, End: 3},
		},
	}}}
	e := newEnv(t, engine, 1)
	e.put(t, "audio/w", toneWAV(2, 3))
	if _, err := e.startJob(t, "w", "audio/w", nil); err != nil {
		t.Fatal(err)
	}
	if job := e.wait(t, "w"); job.TranscriptionJobStatus != types.TranscriptionJobStatusCompleted {
		t.Fatalf("job %s: %s", job.TranscriptionJobStatus, aws.ToString(job.FailureReason))
	}
	raw, ok := e.object(t, "out/w.json")
	if !ok {
		t.Fatal("no output object")
	}
	var doc struct {
		Results struct {
			Items []struct {
				Type         string `json:"type"`
				StartTime    string `json:"start_time"`
				EndTime      string `json:"end_time"`
				Alternatives []struct {
					Confidence string `json:"confidence"`
					Content    string `json:"content"`
				} `json:"alternatives"`
			} `json:"items"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range doc.Results.Items {
		got = append(got, strings.Join([]string{it.Type, it.Alternatives[0].Content, it.StartTime, it.EndTime, it.Alternatives[0].Confidence}, " "))
	}
	// A word without a confidence gets the stand-in's 1.0, as every word did
	// before engines gave confidences.
	want := []string{
		"pronunciation Hello 1.000 1.250 0.75", "punctuation ,   0.0",
		"pronunciation there 2.500 3.000 1.0", "punctuation .   0.0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("items\n got %q\nwant %q", got, want)
	}
}

func TestOutputWithoutChannelIdentificationHasNoLabels(t *testing.T) {
	e := newEnv(t, &scriptEngine{segments: []callscribe.Segment{{Text: "hello there", TimeStart: 1, TimeEnd: 2}}}, 1)
	e.put(t, "audio/m", toneWAV(1, 2))
	_, err := e.startJob(t, "m", "audio/m", func(in *transcribesdk.StartTranscriptionJobInput) {
		in.Settings, in.IdentifyLanguage, in.LanguageCode = nil, nil, types.LanguageCodeEnGb
		in.OutputKey = aws.String("folder/")
	})
	if err != nil {
		t.Fatal(err)
	}
	if job := e.wait(t, "m"); job.TranscriptionJobStatus != types.TranscriptionJobStatusCompleted || job.LanguageCode != types.LanguageCodeEnGb {
		t.Fatalf("job %+v", job)
	}
	// An OutputKey ending in a slash is a folder for <job name>.json.
	raw, ok := e.object(t, "folder/m.json")
	if !ok {
		t.Fatal("no output at folder/m.json")
	}
	if bytes.Contains(raw, []byte("channel_label")) || bytes.Contains(raw, []byte("language_code")) {
		t.Errorf("output has channel labels or an identified language: %s", raw)
	}
	if !bytes.Contains(raw, []byte(`"start_time":"1.000","end_time":"1.500"`)) {
		t.Errorf("first word's times missing: %s", raw)
	}
}

func apiCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

func TestStartConflictsAndUnknownJobs(t *testing.T) {
	e := newEnv(t, &scriptEngine{}, 1)
	e.put(t, "audio/a", toneWAV(2, 1))
	if _, err := e.startJob(t, "dup", "audio/a", nil); err != nil {
		t.Fatal(err)
	}
	_, err := e.startJob(t, "dup", "audio/a", nil)
	var conflict *types.ConflictException
	if !errors.As(err, &conflict) {
		t.Errorf("duplicate start: want ConflictException, got %v", err)
	}
	var nf *types.NotFoundException
	_, err = e.client.GetTranscriptionJob(t.Context(), &transcribesdk.GetTranscriptionJobInput{TranscriptionJobName: aws.String("nope")})
	if !errors.As(err, &nf) {
		t.Errorf("get unknown: want NotFoundException, got %v", err)
	}
	// Transcribe's model lists no NotFoundException for DeleteTranscriptionJob,
	// so the SDK reports it as a generic API error with that code.
	_, err = e.client.DeleteTranscriptionJob(t.Context(), &transcribesdk.DeleteTranscriptionJobInput{TranscriptionJobName: aws.String("nope")})
	if apiCode(err) != "NotFoundException" {
		t.Errorf("delete unknown: want NotFoundException, got %v", err)
	}
	// Deleted, the name is free again.
	e.wait(t, "dup")
	if _, err := e.client.DeleteTranscriptionJob(t.Context(), &transcribesdk.DeleteTranscriptionJobInput{TranscriptionJobName: aws.String("dup")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.startJob(t, "dup", "audio/a", nil); err != nil {
		t.Errorf("start after delete: %v", err)
	}
}

func TestStartValidation(t *testing.T) {
	e := newEnv(t, &scriptEngine{}, 1)
	e.put(t, "audio/a", toneWAV(2, 1))
	for name, tc := range map[string]struct {
		job    string
		mutate func(*transcribesdk.StartTranscriptionJobInput)
		want   string
	}{
		"name with a space": {"has space", nil, "BadRequestException"},
		"http media URI": {"j1", func(in *transcribesdk.StartTranscriptionJobInput) {
			in.Media.MediaFileUri = aws.String("https://example.com/a.wav")
		}, "BadRequestException"},
		"no output bucket":      {"j2", func(in *transcribesdk.StartTranscriptionJobInput) { in.OutputBucketName = nil }, "BadRequestException"},
		"output bucket missing": {"j3", func(in *transcribesdk.StartTranscriptionJobInput) { in.OutputBucketName = aws.String("no-such-bucket") }, "BadRequestException"},
		"media object missing": {"j4", func(in *transcribesdk.StartTranscriptionJobInput) {
			in.Media.MediaFileUri = aws.String("s3://" + bucket + "/audio/none")
		}, "BadRequestException"},
		"language and identify": {"j5", func(in *transcribesdk.StartTranscriptionJobInput) { in.LanguageCode = types.LanguageCodeEnUs }, "BadRequestException"},
		"neither language":      {"j6", func(in *transcribesdk.StartTranscriptionJobInput) { in.IdentifyLanguage = nil }, "BadRequestException"},
		"unknown language code": {"j7", func(in *transcribesdk.StartTranscriptionJobInput) {
			in.IdentifyLanguage, in.LanguageCode = nil, "xx-XX"
		}, "BadRequestException"},
		"unknown media format":  {"j8", func(in *transcribesdk.StartTranscriptionJobInput) { in.MediaFormat = "aiff" }, "BadRequestException"},
		"speaker labels":        {"j9", func(in *transcribesdk.StartTranscriptionJobInput) { in.Settings.ShowSpeakerLabels = aws.Bool(true) }, "BadRequestException"},
		"invalid output key":    {"j10", func(in *transcribesdk.StartTranscriptionJobInput) { in.OutputKey = aws.String("a key with spaces") }, "BadRequestException"},
		"invalid output bucket": {"j11", func(in *transcribesdk.StartTranscriptionJobInput) { in.OutputBucketName = aws.String("Bad_Bucket") }, "BadRequestException"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.startJob(t, tc.job, "audio/a", tc.mutate)
			if got := apiCode(err); got != tc.want {
				t.Errorf("got %v (%q), want %s", err, got, tc.want)
			}
			if _, err := e.client.GetTranscriptionJob(t.Context(), &transcribesdk.GetTranscriptionJobInput{TranscriptionJobName: aws.String(strings.ReplaceAll(tc.job, " ", "-"))}); apiCode(err) != "NotFoundException" {
				t.Errorf("a refused start left a job: %v", err)
			}
		})
	}
}

func TestProtocolErrors(t *testing.T) {
	e := newEnv(t, &scriptEngine{}, 1)
	post := func(method, target, contentType, body string) (int, map[string]string) {
		req, err := http.NewRequestWithContext(t.Context(), method, e.url+"/", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if target != "" {
			req.Header.Set("X-Amz-Target", target)
		}
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	const json11 = "application/x-amz-json-1.1"
	for name, tc := range map[string]struct {
		method, target, contentType, body, want string
	}{
		"unknown operation": {"POST", "Transcribe.ListTranscriptionJobs", json11, "{}", "UnknownOperationException"},
		"no target":         {"POST", "", json11, "{}", "UnknownOperationException"},
		"GET":               {"GET", "Transcribe.GetTranscriptionJob", json11, "", "UnknownOperationException"},
		"malformed JSON":    {"POST", "Transcribe.GetTranscriptionJob", json11, `{"TranscriptionJobName":`, "SerializationException"},
		"wrong member type": {"POST", "Transcribe.GetTranscriptionJob", json11, `{"TranscriptionJobName":7}`, "SerializationException"},
		"content type":      {"POST", "Transcribe.GetTranscriptionJob", "application/json", `{"TranscriptionJobName":"a"}`, "SerializationException"},
		"missing name":      {"POST", "Transcribe.GetTranscriptionJob", json11, `{}`, "BadRequestException"},
	} {
		t.Run(name, func(t *testing.T) {
			status, out := post(tc.method, tc.target, tc.contentType, tc.body)
			if status != http.StatusBadRequest || out["__type"] != "com.amazonaws.transcribe#"+tc.want || out["Message"] == "" {
				t.Errorf("got %d %v, want 400 %s with a message", status, out, tc.want)
			}
		})
	}
}

func TestFailedJobs(t *testing.T) {
	e := newEnv(t, &scriptEngine{segments: []callscribe.Segment{{Text: "hi", TimeEnd: 1}}}, 1)
	e.put(t, "audio/wav", toneWAV(2, 1))
	e.put(t, "audio/mono", toneWAV(1, 1))
	e.put(t, "audio/garbage", []byte("RIFF....WAVEnot really"))
	for name, tc := range map[string]struct {
		key    string
		mutate func(*transcribesdk.StartTranscriptionJobInput)
		reason string
	}{
		"format mismatch": {"audio/wav", func(in *transcribesdk.StartTranscriptionJobInput) { in.MediaFormat = types.MediaFormatMp3 },
			"The media format provided does not match the detected media format."},
		"mono with channel identification": {"audio/mono", nil, "channel identification is not supported"},
		"corrupt WAV":                      {"audio/garbage", nil, "could not be decoded"},
	} {
		t.Run(name, func(t *testing.T) {
			job := strings.ReplaceAll(name, " ", "-")
			if _, err := e.startJob(t, job, tc.key, tc.mutate); err != nil {
				t.Fatal(err)
			}
			j := e.wait(t, job)
			if j.TranscriptionJobStatus != types.TranscriptionJobStatusFailed || !strings.Contains(aws.ToString(j.FailureReason), tc.reason) {
				t.Errorf("got %s %q, want FAILED with %q", j.TranscriptionJobStatus, aws.ToString(j.FailureReason), tc.reason)
			}
			if _, ok := e.object(t, "out/"+job+".json"); ok {
				t.Error("a failed job wrote output")
			}
		})
	}
}

// gateEngine holds every transcription until released (or cancelled) and
// records how many ran at once.
type gateEngine struct {
	release chan struct{}
	started chan string

	mu        sync.Mutex
	active    int
	maxActive int
	cancelled int
	returned  int
}

func newGateEngine() *gateEngine {
	return &gateEngine{release: make(chan struct{}), started: make(chan string, 100)}
}

func (g *gateEngine) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	g.mu.Lock()
	g.active++
	g.maxActive = max(g.maxActive, g.active)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.active--
		g.returned++
		g.mu.Unlock()
	}()
	g.started <- req.JobID
	select {
	case <-g.release:
		lang := "en"
		return &callscribe.TranscriptionResult{Language: &lang, Transcript: []callscribe.Segment{{Text: "done", TimeEnd: 1}}}, nil
	case <-ctx.Done():
		g.mu.Lock()
		g.cancelled++
		g.mu.Unlock()
		return nil, ctx.Err()
	}
}

func (g *gateEngine) counts() (maxActive, cancelled, returned int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.maxActive, g.cancelled, g.returned
}

func (g *gateEngine) waitStarted(t *testing.T) string {
	t.Helper()
	select {
	case name := <-g.started:
		return name
	case <-time.After(10 * time.Second):
		t.Fatal("no transcription started")
		return ""
	}
}

func (e *env) status(t *testing.T, name string) types.TranscriptionJobStatus {
	t.Helper()
	out, err := e.client.GetTranscriptionJob(t.Context(), &transcribesdk.GetTranscriptionJobInput{TranscriptionJobName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return out.TranscriptionJob.TranscriptionJobStatus
}

func TestWorkersBoundConcurrency(t *testing.T) {
	g := newGateEngine()
	e := newEnv(t, g, 2)
	e.put(t, "audio/a", toneWAV(2, 1))
	names := []string{"c0", "c1", "c2", "c3", "c4"}
	for _, n := range names {
		if _, err := e.startJob(t, n, "audio/a", nil); err != nil {
			t.Fatal(err)
		}
	}
	// Jobs start in order, two at a time.
	first := []string{g.waitStarted(t), g.waitStarted(t)}
	slices.Sort(first)
	if !reflect.DeepEqual(first, names[:2]) {
		t.Errorf("first started %v, want %v", first, names[:2])
	}
	select {
	case n := <-g.started:
		t.Fatalf("a third job (%s) started with two workers busy", n)
	case <-time.After(100 * time.Millisecond):
	}
	for i, n := range names {
		want := types.TranscriptionJobStatusQueued
		if i < 2 {
			want = types.TranscriptionJobStatusInProgress
		}
		if got := e.status(t, n); got != want {
			t.Errorf("%s is %s, want %s", n, got, want)
		}
	}
	close(g.release)
	for _, n := range names {
		if j := e.wait(t, n); j.TranscriptionJobStatus != types.TranscriptionJobStatusCompleted {
			t.Errorf("%s: %s %s", n, j.TranscriptionJobStatus, aws.ToString(j.FailureReason))
		}
	}
	if maxActive, _, _ := g.counts(); maxActive != 2 {
		t.Errorf("%d transcriptions ran at once, want 2", maxActive)
	}
}

func TestDeleteCancelsARunningJob(t *testing.T) {
	g := newGateEngine()
	e := newEnv(t, g, 1)
	e.put(t, "audio/a", toneWAV(2, 1))
	if _, err := e.startJob(t, "running", "audio/a", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.startJob(t, "queued", "audio/a", nil); err != nil {
		t.Fatal(err)
	}
	g.waitStarted(t)
	for _, n := range []string{"queued", "running"} {
		if _, err := e.client.DeleteTranscriptionJob(t.Context(), &transcribesdk.DeleteTranscriptionJobInput{TranscriptionJobName: aws.String(n)}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, cancelled, _ := g.counts(); cancelled == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the running job's engine call was not cancelled")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case n := <-g.started:
		t.Errorf("the deleted queued job %s started", n)
	case <-time.After(100 * time.Millisecond):
	}
	if _, ok := e.object(t, "out/running.json"); ok {
		t.Error("a deleted job wrote output")
	}
}

func TestShutdownWaitsForRunningJobs(t *testing.T) {
	g := newGateEngine()
	e := newEnv(t, g, 1)
	e.put(t, "audio/a", toneWAV(2, 1))
	for _, n := range []string{"s0", "s1"} {
		if _, err := e.startJob(t, n, "audio/a", nil); err != nil {
			t.Fatal(err)
		}
	}
	g.waitStarted(t)
	done := make(chan error, 1)
	go func() { done <- e.srv.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) while a job ran", err)
	case <-time.After(100 * time.Millisecond):
	}
	// No new jobs while shutting down; the SDK sees a retryable server fault.
	_, err := e.startJob(t, "late", "audio/a", nil)
	if apiCode(err) != "InternalFailureException" {
		t.Errorf("start during shutdown: got %v", err)
	}
	close(g.release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return after the jobs finished")
	}
	// The queued job was drained too.
	for _, n := range []string{"s0", "s1"} {
		if got := e.status(t, n); got != types.TranscriptionJobStatusCompleted {
			t.Errorf("%s is %s after a graceful shutdown", n, got)
		}
	}
}

func TestShutdownDeadlineCancelsRunningJobs(t *testing.T) {
	g := newGateEngine()
	e := newEnv(t, g, 1)
	e.put(t, "audio/a", toneWAV(2, 1))
	for _, n := range []string{"r0", "r1"} {
		if _, err := e.startJob(t, n, "audio/a", nil); err != nil {
			t.Fatal(err)
		}
	}
	g.waitStarted(t)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := e.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want the deadline", err)
	}
	// Shutdown returned only after the worker did: the engine call is over.
	if _, cancelled, returned := g.counts(); cancelled != 1 || returned != 1 {
		t.Errorf("engine calls cancelled %d, returned %d; want 1, 1", cancelled, returned)
	}
	if got := e.status(t, "r1"); got != types.TranscriptionJobStatusQueued {
		t.Errorf("the queued job is %s, want it left QUEUED", got)
	}
	if got := e.status(t, "r0"); got != types.TranscriptionJobStatusFailed {
		t.Errorf("the cancelled job is %s, want FAILED", got)
	}
}
