// Command derived-worker is a Lambda function of callscribe: it runs summary
// and tags jobs from the derived queue (lambdaapi.DerivedWorker) with the
// insight providers of package insight, and links no speech provider.
package main

import (
	"github.com/callscribe/callscribe/shared/stack/awsstack/derivedengines"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/workers"
)

func main() { workers.Serve(lambdaapi.DerivedWorker, derivedengines.EngineTable()) }
