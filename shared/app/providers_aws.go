package app

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/transcribe"

	"github.com/callscribe/callscribe/shared/awstranscribe"
	"github.com/callscribe/callscribe/shared/bedrock"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// The AWS providers register like any deployment-specific engine. Building them
// only constructs SDK clients: credentials are resolved on the first request, so
// a process that never transcribes or summarises never calls AWS for them.
func init() {
	RegisterTranscriber("aws-transcribe", newAWSTranscriber)
	RegisterInsights("bedrock",
		func(cfg Config) (callscribe.Summarizer, error) {
			c, err := newBedrockClient(cfg)
			if err != nil {
				return nil, err
			}
			return bedrock.NewSummarizer(c), nil
		},
		func(cfg Config) (callscribe.Tagger, error) {
			c, err := newBedrockClient(cfg)
			if err != nil {
				return nil, err
			}
			return bedrock.NewTagger(c), nil
		})
}

// newAWSTranscriber runs Amazon Transcribe on the audio bucket: Transcribe reads
// the upload from s3://AUDIO_BUCKET/<key> and writes its result under
// transcribe-output/ in the same bucket, where we read and delete it.
func newAWSTranscriber(cfg Config) (callscribe.Transcriber, func(), error) {
	if cfg.AudioBucket == "" {
		return nil, nil, errors.New("TRANSCRIBER=aws-transcribe needs AUDIO_BUCKET")
	}
	awsCfg, err := awsConfig(context.Background(), cfg)
	if err != nil {
		return nil, nil, err
	}
	s3c := awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		if cfg.S3Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.S3Endpoint)
			o.UsePathStyle = true
		}
	})
	t := awstranscribe.New(transcribe.NewFromConfig(awsCfg), awstranscribe.NewS3Output(s3c, cfg.AudioBucket),
		awstranscribe.Config{Bucket: cfg.AudioBucket, AgentChannel: cfg.AgentChannel})
	return t, nil, nil
}

func newBedrockClient(cfg Config) (*bedrock.Client, error) {
	awsCfg, err := awsConfig(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return bedrock.NewClient(bedrockruntime.NewFromConfig(awsCfg), cfg.BedrockModelID), nil
}
