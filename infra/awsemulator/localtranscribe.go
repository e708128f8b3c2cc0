package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/callscribe/callscribe/infra/awsemulator/transcribe"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
)

// localCheckAfter is how soon the pipeline asks the local Transcribe again
// about a running job when TRANSCRIBE_CHECK_AFTER is unset: on AWS a job runs
// for minutes and 15 s between checks costs nothing; here the embedded engine
// finishes a call in seconds.
const localCheckAfter = time.Second

// defaultTranscriber makes `make run-aws-local` transcribe out of the box: with
// TRANSCRIBER unset (or the embedded stack's sphinx, which the Lambda build
// lacks) the emulation runs the template's default, aws-transcribe, against the
// local stand-in, which decodes with the embedded engine.
func defaultTranscriber(cfg *config.Config, set string) {
	if set == "" || set == "sphinx" {
		cfg.Transcriber = "aws-transcribe"
	}
	if cfg.TranscribeCheckAfter == 0 {
		cfg.TranscribeCheckAfter = localCheckAfter
	}
}

// startTranscribe serves the local Amazon Transcribe on loopback, backed by the
// embedded speech engine, and points cfg at it. The returned stop cancels
// running jobs: the emulation's state is in memory and gone at exit anyway.
func startTranscribe(servers *awstest.Servers, cfg *config.Config, logger *slog.Logger) (stop func(), err error) {
	engine, err := sphinx.NewTranscriber(sphinx.Config{Decoders: cfg.Workers, AgentChannel: cfg.AgentChannel, SpeakerAdaptation: cfg.SpeakerAdaptation,
		KeepEcho: !cfg.EchoRemoval, MoonshineDir: cfg.NeuralSpeechDir(), MoonshineOnly: cfg.NeuralSpeech == "only"})
	if err != nil {
		return nil, fmt.Errorf("the local Amazon Transcribe needs the embedded speech engine (make deps-speech and a cgo build), or set TRANSCRIBER=openai: %w", err)
	}
	s3c := awss3.NewFromConfig(servers.S3Config(), func(o *awss3.Options) { o.UsePathStyle = true })
	standIn := transcribe.New(s3c, engine, transcribe.Config{Workers: cfg.Workers, Logger: logger.With("service", "transcribe")})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		standIn.Close()
		engine.Close()
		return nil, err
	}
	hs := &http.Server{Handler: standIn, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	cfg.TranscribeEndpoint = "http://" + ln.Addr().String()
	logger.Info("local Amazon Transcribe ready", "endpoint", cfg.TranscribeEndpoint, "engine", "sphinx")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		standIn.Close()
		engine.Close()
	}, nil
}
