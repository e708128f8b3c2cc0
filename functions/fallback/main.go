// Command fallback is a Lambda function of callscribe; lambdaapi.Functions says what
// it serves and template.yaml how it is triggered.
package main

import "github.com/callscribe/callscribe/shared/lambdaapi"

func main() { lambdaapi.Main("fallback") }
