// Command create is a Lambda function of callscribe: lambdaapi.Create says what
// it serves, template.yaml how it is triggered.
package main

import "github.com/callscribe/callscribe/shared/transport/lambdaapi"

func main() { lambdaapi.Serve(lambdaapi.Create) }
