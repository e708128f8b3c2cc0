// Command transcription-worker is a Lambda function of callscribe: it runs
// transcriptions from the transcription queue (inventory.TranscriptionWorker)
// with the speech providers of package speech, and links no other provider.
package main

import (
	"github.com/callscribe/callscribe/shared/stack/awsstack/transcriptionengines"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/workers"
)

func main() { workers.Serve(inventory.TranscriptionWorker, transcriptionengines.EngineTable()) }
