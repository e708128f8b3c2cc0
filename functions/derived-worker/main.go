// Command derived-worker is a Lambda function of callscribe: it runs summary
// and tags jobs from the derived queue (lambdaapi.DerivedWorker) with the
// insight providers of package insight, and links no speech provider.
package main

import (
	"github.com/callscribe/callscribe/shared/awsstack/insight"
	"github.com/callscribe/callscribe/shared/lambdaapi"
	"github.com/callscribe/callscribe/shared/lambdaapi/workers"
)

func main() { workers.Serve(lambdaapi.DerivedWorker, insight.Providers()) }
