// Package workers runs the SQS-triggered Lambda functions: the pipeline
// worker over the jobs service, with the providers the function's queue needs
// built from the table its main passes (the transcription worker a speech
// table, the derived-job worker an insight table, the callback worker none).
// API functions do not import it, so they link neither the pipeline nor any
// provider; it does not import package lambdaapi, so a worker links no HTTP
// transport (functions/linkage_test.go checks both).
package workers

import (
	"os"
	"slices"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/service/callback"
	"github.com/callscribe/callscribe/shared/service/pipeline"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/lambdaenv"
)

// selection is what a worker consuming f's message kinds must build: a
// transcriber for transcriptions, a summarizer and a tagger for derived jobs.
func selection(f inventory.Function, backend *awsstack.AWS) engines.Selection {
	var sel engines.Selection
	if slices.Contains(f.Kinds, callscribe.KindTranscribe) {
		sel.Transcriber = backend.Config.Transcriber
	}
	if slices.Contains(f.Kinds, callscribe.KindDerive) {
		sel.Summarizer, sel.Tagger = backend.Config.Summarizer, backend.Config.Tagger
	}
	return sel
}

// Handler builds the SQS handler of worker function f over backend, with its
// providers from table.
func Handler(f inventory.Function, backend *awsstack.AWS, table engines.Table[*awsstack.AWS]) (SQSEventHandler, *engines.Engines, error) {
	eng, err := engines.Build(table, backend, selection(f, backend))
	if err != nil {
		return nil, nil, err
	}
	cfg := backend.Config
	w := &pipeline.Worker{
		Jobs: backend.Service, Audio: backend.Audio, Queue: backend.Queue,
		Transcriber: eng.Transcriber, Summarizer: eng.Summarizer, Tagger: eng.Tagger, Sentiment: eng.Sentiment,
		Notifier:            callback.NewNotifier(callback.NotifierConfig{AllowHosts: cfg.CallbackAllowHosts, Timeout: cfg.CallbackTimeout}),
		Logger:              backend.Logger,
		CallbackBackoffBase: cfg.CallbackBackoffBase,
		CallbackTimeout:     cfg.CallbackTimeout,
		Webhooks:            backend.Webhooks,
	}
	return SQSBatchHandler(w, backend.Logger, f.Kinds...), eng, nil
}

// Serve is the whole main of a worker function.
func Serve(f inventory.Function, table engines.Table[*awsstack.AWS]) {
	backend := lambdaenv.Setup(f.Name)
	h, _, err := Handler(f, backend, table)
	if err != nil {
		backend.Logger.Error("starting the worker failed", "err", err)
		os.Exit(1)
	}
	lambda.Start(h)
}
