// Command tag is a Lambda function of callscribe: inventory.Tag says what
// it serves, template.yaml how it is triggered.
package main

import (
	"github.com/callscribe/callscribe/shared/transport/lambdaapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
)

func main() { lambdaapi.Serve(inventory.Tag) }
