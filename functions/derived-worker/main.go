// Command derived-worker is a Lambda function of callscribe: it runs summary
// and tags jobs from the derived queue (inventory.DerivedWorker) with the
// insight providers of package insight, and links no speech provider.
package main

import (
	"github.com/callscribe/callscribe/shared/stack/awsstack/derivedengines"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/workers"
)

func main() { workers.Serve(inventory.DerivedWorker, derivedengines.EngineTable()) }
