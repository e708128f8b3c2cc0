// Command usage is the Lambda function behind the usage route of the API.
package main

import (
	"github.com/callscribe/callscribe/shared/httpapi"
	"github.com/callscribe/callscribe/shared/lambdaapi"
)

func main() { lambdaapi.ServeRoutes(httpapi.RouteUsage) }
