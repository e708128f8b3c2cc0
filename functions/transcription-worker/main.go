// Command transcription-worker is a Lambda function of callscribe: it runs
// transcriptions from the transcription queue (lambdaapi.TranscriptionWorker)
// with the speech providers of package speech, and links no other provider.
package main

import (
	"github.com/callscribe/callscribe/shared/stack/awsstack/transcriptionengines"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/workers"
)

func main() { workers.Serve(lambdaapi.TranscriptionWorker, transcriptionengines.EngineTable()) }
