// Package adapters groups the implementations of the domain's storage and
// queue ports (package callscribe), one package per dependency:
//   - sqlite: JobStore, AccountStore and a durable Queue in one SQLite file
//     (the embedded stack).
//   - diskaudio: AudioStore, UploadSigner and AudioLinker on the local disk
//     (the embedded stack).
//   - dynamodb: JobStore and AccountStore on DynamoDB (AWS).
//   - s3: AudioStore, presigned uploads and audio links on S3 (AWS).
//   - sqs: Queue on SQS, one queue per message kind (AWS).
//
// Every store runs the same contract suites (shared/testkit/storetest), the
// AWS ones against DynamoDB Local, local-aws-sqs and gofakes3.
package adapters
