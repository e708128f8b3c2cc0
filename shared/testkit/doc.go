// Package testkit groups what only tests link:
//   - apitest: the black-box HTTP suite, run against the embedded stack and
//     the AWS emulation.
//   - storetest: the store contract suites, run against every JobStore,
//     AccountStore and Queue.
//   - awstest: starts DynamoDB Local, local-aws-sqs and gofakes3 for a test.
//   - testengine: a deterministic speech engine (build tag testengine) for
//     suites that need a transcript without decoding speech.
//   - whisperstandin: a local OpenAI-compatible transcription server that
//     hears the tone-words of its fixtures, for TRANSCRIBER=openai tests.
package testkit
