// Command web is a Lambda function of callscribe: it serves the dashboard's
// page and assets (inventory.Web); template.yaml says how it is triggered.
package main

import (
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/web"
)

func main() { web.Serve(inventory.Web) }
