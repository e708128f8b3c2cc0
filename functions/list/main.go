// Command list is the Lambda function behind the list route of the API.
package main

import (
	"github.com/callscribe/callscribe/shared/httpapi"
	"github.com/callscribe/callscribe/shared/lambdaapi"
)

func main() { lambdaapi.ServeRoutes(httpapi.RouteListJobs) }
