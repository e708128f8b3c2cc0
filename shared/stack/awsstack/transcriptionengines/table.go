// Package transcriptionengines is the transcription worker's engine table on AWS:
// Amazon Transcribe (TRANSCRIBER=aws-transcribe, the template's default) and
// the OpenAI-compatible provider. Only the transcription worker imports it, so
// no other function links the Transcribe SDK.
package transcriptionengines

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/transcribe"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/engines/awstranscribe"
	"github.com/callscribe/callscribe/shared/engines/insights/sentiment"
	"github.com/callscribe/callscribe/shared/engines/openai"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
)

// EngineTable is the table. Building a provider only constructs SDK clients from
// the function's one AWS configuration: credentials are resolved on the first
// request, so a cold start calls no AWS API for them.
func EngineTable() engines.Table[*awsstack.AWS] {
	return engines.Table[*awsstack.AWS]{
		Transcribers: map[string]engines.Factory[*awsstack.AWS, callscribe.Transcriber]{
			"aws-transcribe": awsTranscribe,
			"openai": func(a *awsstack.AWS) (callscribe.Transcriber, func(), error) {
				c := a.Config
				return openai.NewTranscriber(openai.NewClient(c.OpenAIBaseURL, c.OpenAIAPIKey, c.OpenAITimeout), c.OpenAITranscribeModel, c.AgentChannel), nil, nil
			},
		},
		// The built-in segment scorer: a small package of its own, so this
		// function does not link the tagger's trained model.
		Sentiment: sentiment.NewScorer(),
	}
}

// awsTranscribe runs Amazon Transcribe on the audio bucket: Transcribe reads
// the upload from s3://AUDIO_BUCKET/<key> and writes its result under
// transcribe-output/ in the same bucket, where the worker reads and deletes it
// with the function's one S3 client.
func awsTranscribe(a *awsstack.AWS) (callscribe.Transcriber, func(), error) {
	if a.Config.AudioBucket == "" {
		return nil, nil, errors.New("TRANSCRIBER=aws-transcribe needs AUDIO_BUCKET")
	}
	client := transcribe.NewFromConfig(a.SDK, func(o *transcribe.Options) {
		if a.Config.TranscribeEndpoint != "" {
			o.BaseEndpoint = aws.String(a.Config.TranscribeEndpoint)
		}
	})
	t := awstranscribe.New(client, awstranscribe.NewS3Output(a.S3, a.Config.AudioBucket),
		awstranscribe.Config{Bucket: a.Config.AudioBucket, AgentChannel: a.Config.AgentChannel, CheckAfter: a.Config.TranscribeCheckAfter})
	return t, nil, nil
}
