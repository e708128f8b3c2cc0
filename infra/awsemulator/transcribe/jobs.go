package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/callscribe/callscribe/shared/audio/probe"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/redact"
	"github.com/callscribe/callscribe/shared/engines/awstranscribe"
)

// maxMediaBytes bounds the media a job reads. Transcribe takes files up to
// 2 GB; this server reads the whole file into memory for the engine.
const maxMediaBytes = 512 << 20

// job is one transcription job. The fields below created are guarded by
// Server.mu once the job is in Server.jobs.
type job struct {
	name                  string
	mediaURI              string
	mediaBucket, mediaKey string
	outputBucket          string
	outputKey             string
	identifyLanguage      bool
	languageOptions       []string
	channelIdentification bool
	// redactPII: ContentRedaction asked for a redacted transcript.
	redactPII bool
	created   time.Time

	mediaFormat   string // as requested, or as detected once the job ran
	languageCode  string // as requested, or as identified
	status        string
	failureReason string
	sampleRate    int
	started       time.Time
	completed     time.Time
	// cancel stops the running job; nil while queued.
	cancel context.CancelFunc
	// deleted: DeleteTranscriptionJob forgot the job; its outcome is dropped.
	deleted bool
}

// work runs queued jobs until the server stops.
func (s *Server) work() {
	for {
		j, ctx, cancel := s.next()
		if j == nil {
			return
		}
		s.run(ctx, j)
		cancel()
	}
}

// next takes the oldest queued job and marks it IN_PROGRESS, waiting while
// the queue is empty. It returns nil when the worker should exit.
func (s *Server) next() (*job, context.Context, context.CancelFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.abandoned {
			return nil, nil, nil
		}
		if len(s.queue) > 0 {
			j := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			if j.deleted {
				continue
			}
			ctx, cancel := context.WithCancel(s.runCtx)
			j.cancel, j.status, j.started = cancel, StatusInProgress, s.now()
			return j, ctx, cancel
		}
		if s.stopping {
			return nil, nil, nil
		}
		s.ready.Wait()
	}
}

// outcome is what running a job produced: a failure reason, or the language
// it identified.
type outcome struct {
	failure    string
	language   string
	format     string
	sampleRate int
}

func failed(format string, args ...any) outcome {
	return outcome{failure: fmt.Sprintf(format, args...)}
}

// run transcribes one job and records its outcome.
func (s *Server) run(ctx context.Context, j *job) {
	started := s.now()
	out := s.transcribe(ctx, j)
	s.mu.Lock()
	defer s.mu.Unlock()
	if j.deleted {
		return
	}
	j.completed = s.now()
	j.cancel = nil
	if out.format != "" && j.mediaFormat == "" {
		j.mediaFormat = out.format
	}
	j.sampleRate = out.sampleRate
	if out.failure != "" {
		j.status, j.failureReason = StatusFailed, out.failure
		s.log.Warn("local transcribe job failed", "job", j.name, "reason", out.failure, "ms", j.completed.Sub(started).Milliseconds())
		return
	}
	j.status = StatusCompleted
	if j.identifyLanguage && out.language != "" {
		j.languageCode = out.language
	}
	s.log.Info("local transcribe job completed", "job", j.name, "output", "s3://"+j.outputBucket+"/"+j.outputKey, "ms", j.completed.Sub(started).Milliseconds())
}

// transcribe reads the media, runs the engine and writes the result JSON.
func (s *Server) transcribe(ctx context.Context, j *job) outcome {
	media, failure := s.readMedia(ctx, j)
	if failure != "" {
		return outcome{failure: failure}
	}
	format, ok := probe.DetectFormat(media[:min(len(media), probe.HeadSize)])
	if !ok {
		return failed("The media file could not be decoded: it is not WAV or MP3 audio, the formats the local Transcribe decodes.")
	}
	if j.mediaFormat != "" && j.mediaFormat != string(format) {
		return failed("The media format provided does not match the detected media format. Check the media format and try your request again.")
	}
	info, err := probe.Probe(bytes.NewReader(media), int64(len(media)))
	if err != nil {
		return failed("The media file could not be decoded: %v", err)
	}
	out := outcome{format: string(format), sampleRate: info.SampleRate}
	if j.channelIdentification && info.Channels != 2 {
		out.failure = fmt.Sprintf("The media has %d channel(s); channel identification is not supported for audio that does not have 2 channels.", info.Channels)
		return out
	}
	res, err := s.engine.Transcribe(ctx, callscribe.TranscriptionRequest{
		JobID: j.name, AudioKey: j.mediaKey, Audio: media, Format: format, Language: j.languageCode,
	})
	if err != nil {
		out.failure = engineFailure(ctx, err)
		return out
	}
	if res == nil {
		out.failure = "Internal failure: the engine returned no result."
		return out
	}
	if j.identifyLanguage && res.Language != nil {
		if code, ok := awstranscribe.LanguageCode(*res.Language); ok {
			out.language = string(code)
		}
	}
	channels := 0
	if j.channelIdentification {
		channels = info.Channels
	}
	transcript := res.Transcript
	if j.redactPII {
		transcript, _, _ = redact.Segments(transcript)
	}
	raw, err := json.Marshal(buildOutput(j.name, transcript, channels, out.language))
	if err != nil {
		out.failure = "Internal failure: " + err.Error()
		return out
	}
	s.mu.Lock()
	deleted := j.deleted
	s.mu.Unlock()
	if deleted {
		return out
	}
	_, err = s.s3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(j.outputBucket), Key: aws.String(j.outputKey),
		Body: bytes.NewReader(raw), ContentType: aws.String("application/json"),
	})
	if err != nil {
		out.failure = fmt.Sprintf("The output could not be written to s3://%s/%s: %v", j.outputBucket, j.outputKey, err)
	}
	return out
}

// readMedia reads the job's media object, or says why it cannot.
func (s *Server) readMedia(ctx context.Context, j *job) ([]byte, string) {
	obj, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(j.mediaBucket), Key: aws.String(j.mediaKey)})
	if err != nil {
		if isS3NotFound(err) {
			return nil, "The URI that you provided doesn't point to an S3 object. Make sure that the object exists and try your request again."
		}
		return nil, fmt.Sprintf("The S3 URI %s can't be read: %v", j.mediaURI, err)
	}
	defer obj.Body.Close()
	media, err := io.ReadAll(io.LimitReader(obj.Body, maxMediaBytes+1))
	if err != nil {
		return nil, fmt.Sprintf("The S3 URI %s can't be read: %v", j.mediaURI, err)
	}
	if len(media) > maxMediaBytes {
		return nil, fmt.Sprintf("The media file is larger than the local Transcribe's limit of %d MiB.", maxMediaBytes>>20)
	}
	return media, ""
}

// engineFailure words an engine's error as Transcribe's FailureReason, so the
// adapter maps it back to the same job error: media the engine cannot use is
// invalid media, a language it lacks is an unsupported language.
func engineFailure(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return "The job was stopped before it finished: " + ctx.Err().Error()
	}
	var je *callscribe.JobError
	if errors.As(err, &je) {
		switch je.Code {
		case callscribe.JobErrBadAudio:
			return "The media file is invalid: " + je.Message
		case callscribe.JobErrUnsupportedLanguage:
			return "The language is not supported: " + je.Message
		}
		return "The transcription failed: " + je.Message
	}
	return "Internal failure: " + err.Error()
}
