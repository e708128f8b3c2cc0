// Command callscribe is the command-line client of the callscribe API: it
// uploads calls for transcription, waits for them, lists and shows jobs, makes
// summaries and tags, and manages API keys. It is built on the Go client
// library, github.com/callscribe/callscribe/shared/client.
//
// Install:
//
//	go install github.com/callscribe/callscribe/infra/callscribe@latest
//
// Quick start against a local stack (`make run`, http://127.0.0.1:8080):
//
//	callscribe login --email you@example.com     # prompts for the password
//	callscribe keys create --save                # prints the key once and saves it
//	callscribe transcribe --wait call.wav other.mp3
//	callscribe jobs list
//	callscribe jobs get JOB_ID                   # [00:01.5] Agent: ...
//	callscribe jobs get JOB_ID --format srt > call.srt
//	callscribe summarize --job JOB_ID --wait
//	callscribe tag --job JOB_ID --wait
//	callscribe usage
//
// Commands: login; keys create|list|revoke; usage; transcribe FILE...; jobs
// list|get|delete; summarize; tag; taxonomy; wait JOB_ID; version. Every
// command has --help with examples.
//
// Settings come from flags first, then the environment, then the config file:
//
//	--base-url     CALLSCRIBE_BASE_URL     service URL (default http://127.0.0.1:8080)
//	--api-key      CALLSCRIBE_API_KEY      API key of the /v1 routes
//	--gateway-key  CALLSCRIBE_GATEWAY_KEY  API gateway key (the apikey header)
//	--config       CALLSCRIBE_CONFIG       config file path
//	               CALLSCRIBE_SESSION_TOKEN  dashboard session (instead of login's)
//	               CALLSCRIBE_NO_PROGRESS  plain lines even on a terminal
//
// The config file, written by `callscribe login` (and `keys create --save`),
// is JSON in os.UserConfigDir()/callscribe/config.json, mode 0600 in a 0700
// directory. Its session and key are used only with the service URL they were
// saved for.
//
// Output: on a terminal, transcribe draws an upload bar per file that turns
// into a status line while --wait polls; piped, it prints one tab-separated
// line per file (file, job id, status) when the job is created and another
// when it ends. jobs list prints an aligned table, or JSON lines with --json.
//
// Errors are one line on stderr with the code, the message and the requestId:
//
//	callscribe: JOB_NOT_FOUND: Job not found. (requestId 0b6c5c1e-...)
//
// Exit status: 0 on success, 1 for API and runtime errors (a failed job
// included), 2 for usage errors (bad flags or arguments, no API key, not
// signed in).
package main
