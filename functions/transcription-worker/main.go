// Command transcription-worker is a Lambda function of callscribe: it runs
// transcriptions from the transcription queue (lambdaapi.TranscriptionWorker)
// with the speech providers of package speech, and links no other provider.
package main

import (
	"github.com/callscribe/callscribe/shared/awsstack/speech"
	"github.com/callscribe/callscribe/shared/lambdaapi"
	"github.com/callscribe/callscribe/shared/lambdaapi/workers"
)

func main() { workers.Serve(lambdaapi.TranscriptionWorker, speech.Providers()) }
