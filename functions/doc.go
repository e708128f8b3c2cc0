// Package functions holds one directory per Lambda function (each a thin main
// over shared/transport/lambdaapi, or lambdaapi/workers for the SQS workers,
// naming its entry of lambdaapi/inventory) and, in this directory, the tests
// that keep template.yaml, the sample events in events/ and what each function
// links in step with them.
package functions
