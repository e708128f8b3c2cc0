// Command callback-worker is a Lambda function of callscribe: it makes
// tagDelivered attempts from the callback queue (inventory.CallbackWorker) and
// needs no provider at all.
package main

import (
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/workers"
)

func main() { workers.Serve(inventory.CallbackWorker, engines.Table[*awsstack.AWS]{}) }
