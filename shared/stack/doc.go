// Package stack groups what decides, for one deployment, which adapter and
// which engine fills each port of the domain (package callscribe). Nothing
// here holds a rule of the service; it only wires.
//
//	port (shared/callscribe)   embedded stack (make run)            AWS (template.yaml, make run-aws-local)
//	------------------------   -----------------------------------  -------------------------------------------
//	JobStore                   adapters/sqlite                      adapters/dynamodb
//	AccountStore               adapters/sqlite                      adapters/dynamodb (API keys) + Cognito sessions
//	IdempotencyStore           adapters/sqlite                      adapters/dynamodb (TTL expires records)
//	AudioStore                 adapters/diskaudio                   adapters/s3
//	UploadSigner               adapters/diskaudio (/local-uploads)  adapters/s3 (presigned POST)
//	AudioLinker                adapters/diskaudio (/local-audio)    adapters/s3 (presigned GET)
//	Queue                      adapters/sqlite (durable queue)      adapters/sqs (one queue per message kind)
//	MessageHandler             service/pipeline, in-process         service/pipeline, in the worker Lambdas
//	Notifier                   service/callback                     service/callback (callback-worker Lambda)
//	Transcriber  TRANSCRIBER   sphinx (default), openai             aws-transcribe (default), openai
//	Summarizer   SUMMARIZER    builtin (default), openai            builtin (default), openai, bedrock
//	Tagger       TAGGER        builtin (default), openai            builtin (default), openai, bedrock
//
// The packages:
//   - config: every setting, read from the environment, and the JSON logger.
//   - embedded: the whole service in one process (adapters, service, HTTP
//     server, in-process workers) and its engine table (embedded/engines.go).
//   - awsstack: one Lambda function's view of AWS (SDK clients, stores, queue
//     router, service); awsstack/transcriptionengines and
//     awsstack/derivedengines are the two worker functions' engine tables, so
//     each worker links only its own engines' SDKs.
//   - insightengines: the insight engines both deployments offer (built-in and
//     OpenAI-compatible).
//
// The engine names in the table are the values of TRANSCRIBER, SUMMARIZER and
// TAGGER; package engines (shared/engines) turns a table and those settings
// into running engines.
package stack
