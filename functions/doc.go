// Package functions holds one directory per Lambda function (each a thin main
// over shared/transport/lambdaapi) and, in this directory, the tests that keep
// template.yaml and the sample events in events/ in step with them.
package functions
