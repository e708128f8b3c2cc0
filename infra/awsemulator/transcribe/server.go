// Package transcribe is a local stand-in for Amazon Transcribe's batch API, as
// gofakes3 stands in for S3: an http.Handler speaking Transcribe's JSON 1.1
// protocol (POST / with X-Amz-Target: Transcribe.<Operation>), so the AWS SDK's
// transcribe client, and with it the aws-transcribe adapter
// (shared/engines/awstranscribe), runs its own code path on one machine. The
// speech recognition is done by an embedded callscribe.Transcriber: PocketSphinx
// in the AWS emulator, a deterministic engine in tests.
//
// # What it does
//
// StartTranscriptionJob validates the request as Transcribe does (job name
// pattern, an s3:// media URI naming an existing object, an output bucket that
// exists, exactly one of LanguageCode and IdentifyLanguage), refuses a
// duplicate name with ConflictException and queues the job. A fixed number of
// workers run queued jobs in order: QUEUED, then IN_PROGRESS while a worker reads
// the media from S3 and runs the engine, then COMPLETED once the result JSON is
// written to s3://OutputBucketName/OutputKey, or FAILED with a FailureReason
// worded like Transcribe's (media that is not WAV or MP3, or that the engine
// cannot decode, fails as invalid media). GetTranscriptionJob reports a job and
// DeleteTranscriptionJob forgets it (cancelling it if it runs); both answer
// NotFoundException for an unknown name. Any other operation is
// UnknownOperationException. Job records live in memory, as all of the
// emulator's state does.
//
// # The result JSON
//
// The output object has Transcribe's shape: results.transcripts[0].transcript,
// results.items (every item, in time order) and results.audio_segments (one per
// engine utterance). With Settings.ChannelIdentification, results.channel_labels
// lists ch_0 and ch_1 with their items and every item carries its channel_label:
// the engine's speaker_id is the channel index (the spec maps left to 0 and
// right to 1). With IdentifyLanguage, results.language_code is the engine's
// language as a Transcribe code (en becomes en-US) and the job reports it as its
// LanguageCode; with LanguageCode, that code is passed to the engine as the
// request's language.
//
// callscribe.Segment carries no word timings, so each utterance's words are
// spread evenly over its span (see timedWords, the one place word times come
// from): word starts and ends are right to the utterance, not to the word.
// Punctuation (. , ? !) ending a word of the engine's text becomes a punctuation
// item without times, as Transcribe writes it. The engine gives no confidence:
// every word's alternative says 1.0 (punctuation 0.0, as Transcribe writes it).
//
// ContentRedaction (RedactionType PII, RedactionOutput redacted) redacts the
// engine's transcript with callscribe's own rules (package redact: cards,
// phone numbers, e-mail addresses, digit runs) before the output is written;
// each redacted item becomes one "[PII]" item spanning its words, whose
// alternative's redactions name the entity type (CREDIT_DEBIT_NUMBER, PHONE,
// EMAIL, or BANK_ACCOUNT_NUMBER for other digit runs), as Transcribe writes
// them. The stand-in redacts those four kinds whatever PiiEntityTypes lists,
// and never writes an unredacted transcript.
//
// Config.Workers bounds how many jobs the engine runs at once; Shutdown drains
// the queue, Close cancels what runs.
//
// # What it does not emulate
//
// Request signatures are not checked (any credentials work). Media is read only
// from s3:// URIs with the server's own S3 client, and only WAV and MP3 are
// decoded (the embedded engines' formats). There is no service-managed output
// bucket (OutputBucketName is required), no speaker diarization
// (ShowSpeakerLabels), no multi-language identification, custom vocabularies,
// language models, redacted_and_unredacted output, NAME and ADDRESS
// redaction, subtitles, tagging, job listing, call analytics or
// streaming. Jobs are not retried after an engine error and records never
// expire (Transcribe keeps them 90 days). Service quotas are not enforced; the
// one limit is 512 MiB of media per job, which is read into memory.
package transcribe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	transcribetypes "github.com/aws/aws-sdk-go-v2/service/transcribe/types"
	smithy "github.com/aws/smithy-go"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Job statuses, as Transcribe names them.
const (
	StatusQueued     = string(transcribetypes.TranscriptionJobStatusQueued)
	StatusInProgress = string(transcribetypes.TranscriptionJobStatusInProgress)
	StatusCompleted  = string(transcribetypes.TranscriptionJobStatusCompleted)
	StatusFailed     = string(transcribetypes.TranscriptionJobStatusFailed)
)

// AccountID is the account the result JSON names (accountId); there is no
// account behind the emulator.
const AccountID = "000000000000"

// maxRequestBytes bounds a request body. Transcribe's requests are a few
// kilobytes of JSON.
const maxRequestBytes = 1 << 20

// Config configures a Server.
type Config struct {
	// Workers is how many jobs run at once; 1 when below 1. Further jobs wait
	// in the queue as QUEUED.
	Workers int
	// Logger receives a line per finished job; slog.Default when nil.
	Logger *slog.Logger
}

// Server is the Transcribe stand-in. It is an http.Handler; New starts its
// workers and Shutdown or Close stops them.
type Server struct {
	s3     *s3.Client
	engine callscribe.Transcriber
	log    *slog.Logger
	now    func() time.Time

	// runCtx is the parent of every running job's context; cancelled when a
	// shutdown stops waiting for running jobs.
	runCtx    context.Context
	cancelRun context.CancelFunc
	workers   sync.WaitGroup

	mu    sync.Mutex
	ready *sync.Cond // signalled when the queue grows or a shutdown begins
	jobs  map[string]*job
	queue []*job
	// stopping: no new jobs are accepted; workers drain the queue and exit.
	stopping bool
	// abandoned: workers stop taking queued jobs, running jobs are cancelled.
	abandoned bool
}

// New returns a running Server that reads media and writes results with s3c
// and transcribes with engine.
func New(s3c *s3.Client, engine callscribe.Transcriber, cfg Config) *Server {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{s3: s3c, engine: engine, log: cfg.Logger, now: time.Now, jobs: map[string]*job{}}
	s.ready = sync.NewCond(&s.mu)
	s.runCtx, s.cancelRun = context.WithCancel(context.Background())
	for range cfg.Workers {
		s.workers.Add(1)
		go func() {
			defer s.workers.Done()
			s.work()
		}()
	}
	return s
}

// Shutdown stops accepting jobs (StartTranscriptionJob then answers
// InternalFailureException, which clients retry) and waits for the workers to
// finish the queued and running jobs. When ctx ends first, queued jobs are left
// unstarted, running ones are cancelled and fail, and Shutdown returns ctx's
// error once every worker has returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	s.ready.Broadcast()
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.cancelRun()
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	s.abandoned = true
	s.ready.Broadcast()
	s.mu.Unlock()
	s.cancelRun()
	<-done
	return ctx.Err()
}

// Close stops at once: running jobs are cancelled, queued ones never start.
// It returns when every worker has returned.
func (s *Server) Close() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = s.Shutdown(ctx)
}

// apiError is an error answer of the JSON 1.1 protocol.
type apiError struct {
	status  int
	errType string
	message string
}

func (e *apiError) Error() string { return e.errType + ": " + e.message }

func badRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "BadRequestException", fmt.Sprintf(format, args...)}
}

func internalFailure(format string, args ...any) *apiError {
	return &apiError{http.StatusInternalServerError, "InternalFailureException", fmt.Sprintf(format, args...)}
}

// ServeHTTP answers one JSON 1.1 request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "Transcribe.")
	if r.Method != http.MethodPost || !ok || op == "" {
		writeError(w, &apiError{http.StatusBadRequest, "UnknownOperationException",
			"Requests are POST / with an X-Amz-Target header of Transcribe.<Operation>."})
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-amz-json-1.1" {
		writeError(w, &apiError{http.StatusBadRequest, "SerializationException",
			fmt.Sprintf("Content-Type must be application/x-amz-json-1.1, not %q.", r.Header.Get("Content-Type"))})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if err != nil {
		writeError(w, &apiError{http.StatusBadRequest, "SerializationException", "The request body could not be read: " + err.Error()})
		return
	}
	if len(body) > maxRequestBytes {
		writeError(w, &apiError{http.StatusBadRequest, "SerializationException", fmt.Sprintf("The request body is larger than %d bytes.", maxRequestBytes)})
		return
	}
	var out any
	var apiErr *apiError
	switch op {
	case "StartTranscriptionJob":
		var in startRequest
		if apiErr = decodeRequest(body, &in); apiErr == nil {
			out, apiErr = s.start(r.Context(), &in)
		}
	case "GetTranscriptionJob":
		var in nameRequest
		if apiErr = decodeRequest(body, &in); apiErr == nil {
			out, apiErr = s.get(&in)
		}
	case "DeleteTranscriptionJob":
		var in nameRequest
		if apiErr = decodeRequest(body, &in); apiErr == nil {
			out, apiErr = s.delete(&in)
		}
	default:
		apiErr = &apiError{http.StatusBadRequest, "UnknownOperationException",
			fmt.Sprintf("Operation %s is not supported by the local Transcribe (StartTranscriptionJob, GetTranscriptionJob and DeleteTranscriptionJob are).", op)}
	}
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(out)
}

// decodeRequest reads a request body. Unknown fields are accepted: newer SDKs may
// send members this server does not know.
func decodeRequest(body []byte, v any) *apiError {
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &apiError{http.StatusBadRequest, "SerializationException", "The request body is not valid JSON for the operation: " + err.Error()}
	}
	return nil
}

func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", e.errType)
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.transcribe#" + e.errType, "Message": e.message})
}

// Request and response members this server reads or writes, named as in the
// Transcribe API.

type startRequest struct {
	TranscriptionJobName      *string
	Media                     *struct{ MediaFileUri *string }
	MediaFormat               *string
	MediaSampleRateHertz      *int32
	LanguageCode              *string
	IdentifyLanguage          *bool
	IdentifyMultipleLanguages *bool
	LanguageOptions           []string
	OutputBucketName          *string
	OutputKey                 *string
	Settings                  *struct {
		ChannelIdentification *bool
		ShowSpeakerLabels     *bool
		VocabularyName        *string
	}
	ModelSettings     *struct{ LanguageModelName *string }
	ContentRedaction  *contentRedaction
	Subtitles         json.RawMessage
	ToxicityDetection json.RawMessage
}

type contentRedaction struct {
	RedactionType   *string
	RedactionOutput *string
	PiiEntityTypes  []string
}

type nameRequest struct {
	TranscriptionJobName *string
}

type jobResponse struct {
	TranscriptionJob jobDescription
}

type jobDescription struct {
	TranscriptionJobName   string
	TranscriptionJobStatus string
	LanguageCode           string `json:",omitempty"`
	MediaSampleRateHertz   int    `json:",omitempty"`
	MediaFormat            string `json:",omitempty"`
	Media                  mediaURI
	Transcript             *transcriptURI `json:",omitempty"`
	CreationTime           epoch
	StartTime              *epoch `json:",omitempty"`
	CompletionTime         *epoch `json:",omitempty"`
	FailureReason          string `json:",omitempty"`
	Settings               settings
	IdentifyLanguage       bool     `json:",omitempty"`
	LanguageOptions        []string `json:",omitempty"`
}

type mediaURI struct{ MediaFileUri string }

type transcriptURI struct {
	TranscriptFileUri         string `json:",omitempty"`
	RedactedTranscriptFileUri string `json:",omitempty"`
}

type settings struct{ ChannelIdentification bool }

// epoch is a timestamp as JSON 1.1 writes it: seconds since the epoch.
type epoch time.Time

func (e epoch) MarshalJSON() ([]byte, error) {
	return json.Marshal(float64(time.Time(e).UnixMilli()) / 1000)
}

var (
	jobNamePattern    = regexp.MustCompile(`^[0-9a-zA-Z._-]{1,200}$`)
	bucketNamePattern = regexp.MustCompile(`^[a-z0-9][.\-a-z0-9]{1,61}[a-z0-9]$`)
	outputKeyPattern  = regexp.MustCompile(`^[a-zA-Z0-9\-_.!*'()/]+$`) // at most 1,024 characters
)

// mediaFormats are Transcribe's MediaFormat values; only wav and mp3 decode here.
var mediaFormats = map[string]bool{}

func init() {
	for _, f := range transcribetypes.MediaFormat("").Values() {
		mediaFormats[string(f)] = true
	}
}

func validLanguageCode(code string) bool {
	for _, c := range transcribetypes.LanguageCode("").Values() {
		if string(c) == code {
			return true
		}
	}
	return false
}

// validate checks a start request as Transcribe does and returns the job it
// describes (not yet queued).
func (s *Server) validate(in *startRequest) (*job, *apiError) {
	name := aws.ToString(in.TranscriptionJobName)
	if name == "" {
		return nil, badRequest("TranscriptionJobName is required.")
	}
	if !jobNamePattern.MatchString(name) {
		return nil, badRequest("The TranscriptionJobName %q is not valid: use 1 to 200 characters of 0-9, a-z, A-Z, '.', '_' and '-'.", name)
	}
	if in.Media == nil || aws.ToString(in.Media.MediaFileUri) == "" {
		return nil, badRequest("Media.MediaFileUri is required.")
	}
	uri := aws.ToString(in.Media.MediaFileUri)
	bucket, key, ok := parseS3URI(uri)
	if !ok {
		return nil, badRequest("The media URI %q is not valid: the local Transcribe reads media from s3://<bucket>/<key> URIs.", uri)
	}
	format := aws.ToString(in.MediaFormat)
	if format != "" && !mediaFormats[format] {
		return nil, badRequest("The MediaFormat %q is not valid.", format)
	}
	outBucket := aws.ToString(in.OutputBucketName)
	if outBucket == "" {
		return nil, badRequest("OutputBucketName is required: the local Transcribe has no service-managed output bucket.")
	}
	if !bucketNamePattern.MatchString(outBucket) {
		return nil, badRequest("The OutputBucketName %q is not a valid bucket name.", outBucket)
	}
	outKey := aws.ToString(in.OutputKey)
	if in.OutputKey != nil && (len(outKey) > 1024 || !outputKeyPattern.MatchString(outKey)) {
		return nil, badRequest("The OutputKey %q is not valid.", outKey)
	}
	// As in Transcribe: no key, or a key ending in a slash (a folder), names the
	// output <job name>.json.
	if outKey == "" || strings.HasSuffix(outKey, "/") {
		outKey += name + ".json"
	}
	lang := aws.ToString(in.LanguageCode)
	identify := aws.ToBool(in.IdentifyLanguage)
	multi := aws.ToBool(in.IdentifyMultipleLanguages)
	switch {
	case multi:
		return nil, badRequest("IdentifyMultipleLanguages is not supported by the local Transcribe; use IdentifyLanguage or LanguageCode.")
	case lang != "" && identify:
		return nil, badRequest("Specify either LanguageCode or IdentifyLanguage, not both.")
	case lang == "" && !identify:
		return nil, badRequest("Specify a LanguageCode, or set IdentifyLanguage to true.")
	case lang != "" && !validLanguageCode(lang):
		return nil, badRequest("The LanguageCode %q is not valid.", lang)
	}
	for _, o := range in.LanguageOptions {
		if !validLanguageCode(o) {
			return nil, badRequest("The LanguageOptions value %q is not a valid language code.", o)
		}
	}
	j := &job{
		name: name, mediaURI: uri, mediaBucket: bucket, mediaKey: key, mediaFormat: format,
		languageCode: lang, identifyLanguage: identify, languageOptions: in.LanguageOptions,
		outputBucket: outBucket, outputKey: outKey, status: StatusQueued, created: s.now(),
	}
	if st := in.Settings; st != nil {
		if aws.ToBool(st.ShowSpeakerLabels) {
			return nil, badRequest("ShowSpeakerLabels (speaker diarization) is not supported by the local Transcribe; use ChannelIdentification.")
		}
		if aws.ToString(st.VocabularyName) != "" {
			return nil, badRequest("Custom vocabularies are not supported by the local Transcribe.")
		}
		j.channelIdentification = aws.ToBool(st.ChannelIdentification)
	}
	if in.ModelSettings != nil && aws.ToString(in.ModelSettings.LanguageModelName) != "" {
		return nil, badRequest("Custom language models are not supported by the local Transcribe.")
	}
	if cr := in.ContentRedaction; cr != nil {
		if aws.ToString(cr.RedactionType) != "PII" {
			return nil, badRequest("ContentRedaction.RedactionType must be PII.")
		}
		switch aws.ToString(cr.RedactionOutput) {
		case "redacted":
		case "redacted_and_unredacted":
			return nil, badRequest("RedactionOutput redacted_and_unredacted is not supported by the local Transcribe; use redacted.")
		default:
			return nil, badRequest("ContentRedaction.RedactionOutput must be redacted or redacted_and_unredacted.")
		}
		for _, t := range cr.PiiEntityTypes {
			if !validPiiEntityType(t) {
				return nil, badRequest("The PiiEntityTypes value %q is not valid.", t)
			}
		}
		j.redactPII = true
	}
	for field, raw := range map[string]json.RawMessage{"Subtitles": in.Subtitles, "ToxicityDetection": in.ToxicityDetection} {
		if len(raw) > 0 && string(raw) != "null" {
			return nil, badRequest("%s is not supported by the local Transcribe.", field)
		}
	}
	return j, nil
}

func validPiiEntityType(t string) bool {
	for _, v := range transcribetypes.PiiEntityType("").Values() {
		if string(v) == t {
			return true
		}
	}
	return false
}

// parseS3URI splits s3://bucket/key.
func parseS3URI(uri string) (bucket, key string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "s3://")
	if !ok {
		return "", "", false
	}
	bucket, key, ok = strings.Cut(rest, "/")
	if !ok || bucket == "" || key == "" {
		return "", "", false
	}
	return bucket, key, true
}

func (s *Server) start(ctx context.Context, in *startRequest) (any, *apiError) {
	j, apiErr := s.validate(in)
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := s.admissible(j.name); apiErr != nil {
		return nil, apiErr
	}
	// Transcribe checks that it can read the media and write the output
	// before accepting a job.
	if apiErr := s.checkS3(ctx, j); apiErr != nil {
		return nil, apiErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if apiErr := s.admissibleLocked(j.name); apiErr != nil {
		return nil, apiErr
	}
	s.jobs[j.name] = j
	s.queue = append(s.queue, j)
	s.ready.Signal()
	return jobResponse{s.describe(j)}, nil
}

func (s *Server) admissible(name string) *apiError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.admissibleLocked(name)
}

func (s *Server) admissibleLocked(name string) *apiError {
	if s.stopping {
		return internalFailure("The local Transcribe is shutting down.")
	}
	if _, exists := s.jobs[name]; exists {
		return &apiError{http.StatusBadRequest, "ConflictException", "The requested job name already exists. Use a different job name."}
	}
	return nil
}

func (s *Server) checkS3(ctx context.Context, j *job) *apiError {
	_, err := s.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(j.mediaBucket), Key: aws.String(j.mediaKey)})
	switch {
	case isS3NotFound(err):
		return badRequest("The URI that you provided doesn't point to an S3 object. Make sure that the object exists and try your request again.")
	case err != nil:
		return internalFailure("Checking the media %s: %v", j.mediaURI, err)
	}
	_, err = s.s3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(j.outputBucket)})
	switch {
	case isS3NotFound(err):
		return badRequest("The output bucket %s doesn't exist. Create it or use another bucket, and try your request again.", j.outputBucket)
	case err != nil:
		return internalFailure("Checking the output bucket %s: %v", j.outputBucket, err)
	}
	return nil
}

func isS3NotFound(err error) bool {
	if err == nil {
		return false
	}
	var nsk *s3types.NoSuchKey
	var nsb *s3types.NoSuchBucket
	var nf *s3types.NotFound
	var apiErr smithy.APIError
	return errors.As(err, &nsk) || errors.As(err, &nsb) || errors.As(err, &nf) ||
		(errors.As(err, &apiErr) && (apiErr.ErrorCode() == "NotFound" || apiErr.ErrorCode() == "NoSuchKey" || apiErr.ErrorCode() == "NoSuchBucket"))
}

func jobName(in *nameRequest) (string, *apiError) {
	name := aws.ToString(in.TranscriptionJobName)
	if name == "" {
		return "", badRequest("TranscriptionJobName is required.")
	}
	if !jobNamePattern.MatchString(name) {
		return "", badRequest("The TranscriptionJobName %q is not valid.", name)
	}
	return name, nil
}

func notFound() *apiError {
	return &apiError{http.StatusBadRequest, "NotFoundException", "The requested job couldn't be found. Check the job name and try your request again."}
}

// withJob runs fn on the named job under s.mu: the name checked, an unknown
// job NotFoundException.
func (s *Server) withJob(in *nameRequest, fn func(name string, j *job) any) (any, *apiError) {
	name, apiErr := jobName(in)
	if apiErr != nil {
		return nil, apiErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[name]
	if !ok {
		return nil, notFound()
	}
	return fn(name, j), nil
}

func (s *Server) get(in *nameRequest) (any, *apiError) {
	return s.withJob(in, func(_ string, j *job) any { return jobResponse{s.describe(j)} })
}

// delete forgets a job. A queued job will not start; a running one is
// cancelled and its result is not written.
func (s *Server) delete(in *nameRequest) (any, *apiError) {
	return s.withJob(in, func(name string, j *job) any {
		delete(s.jobs, name)
		j.deleted = true
		if j.cancel != nil {
			j.cancel()
		}
		return struct{}{}
	})
}

// describe is a job as GetTranscriptionJob reports it; s.mu is held.
func (s *Server) describe(j *job) jobDescription {
	d := jobDescription{
		TranscriptionJobName:   j.name,
		TranscriptionJobStatus: j.status,
		LanguageCode:           j.languageCode,
		MediaSampleRateHertz:   j.sampleRate,
		MediaFormat:            j.mediaFormat,
		Media:                  mediaURI{j.mediaURI},
		CreationTime:           epoch(j.created),
		FailureReason:          j.failureReason,
		Settings:               settings{j.channelIdentification},
		IdentifyLanguage:       j.identifyLanguage,
		LanguageOptions:        j.languageOptions,
	}
	if !j.started.IsZero() {
		t := epoch(j.started)
		d.StartTime = &t
	}
	if !j.completed.IsZero() {
		t := epoch(j.completed)
		d.CompletionTime = &t
	}
	if j.status == StatusCompleted {
		uri := s.objectURL(j.outputBucket, j.outputKey)
		d.Transcript = &transcriptURI{TranscriptFileUri: uri}
		if j.redactPII {
			// Redacted output only: the one file is the redacted transcript.
			d.Transcript = &transcriptURI{RedactedTranscriptFileUri: uri}
		}
	}
	return d
}

// objectURL is the output's https URL, as Transcribe reports it: on the S3
// client's endpoint when it has one (the emulator's local S3), else AWS's.
func (s *Server) objectURL(bucket, key string) string {
	opts := s.s3.Options()
	if ep := aws.ToString(opts.BaseEndpoint); ep != "" {
		return strings.TrimSuffix(ep, "/") + "/" + bucket + "/" + key
	}
	return "https://s3." + opts.Region + ".amazonaws.com/" + bucket + "/" + key
}
