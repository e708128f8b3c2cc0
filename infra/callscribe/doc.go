// Command callscribe is the command-line client of the callscribe API: it
// uploads calls for transcription, waits for them, lists and shows jobs, makes
// summaries and tags, and manages API keys. It is built on the Go client
// library, github.com/callscribe/callscribe/shared/client.
//
// Install: the module is not published, so `go install ...@latest` does not
// work; build it from a checkout of the repository instead:
//
//	go build -o callscribe ./infra/callscribe    # then ./callscribe, or move it onto PATH
//	go run ./infra/callscribe --help             # or run it without building
//
// Quick start against a local stack (`make run`, http://127.0.0.1:8080; set
// CALLSCRIBE_BASE_URL when the service listens elsewhere):
//
//	callscribe signup --email you@example.com    # or login; prompts for the password
//	callscribe keys create --save                # prints the key once and saves it
//	callscribe transcribe --wait call.wav        # [00:01.5] Agent: ... on stdout
//	callscribe transcribe --wait --format srt --output call.srt call.wav
//	callscribe jobs list
//	callscribe jobs get JOB_ID                   # [00:01.5] Agent: ...
//	callscribe jobs metrics JOB_ID               # talk, turns, silence, overtalk as a table
//	callscribe summarize --job JOB_ID --wait
//	callscribe tag --job JOB_ID --wait
//	callscribe usage
//
// Commands: signup; login; keys create|list|revoke; usage; transcribe FILE...;
// jobs list|get|metrics|delete; summarize; tag; taxonomy; wait JOB_ID; version;
// completion bash|zsh|fish. Every command has --help with examples.
//
// Waiting: --wait (transcribe, summarize, tag) and wait poll every
// --poll-interval (2 s) until the job ends, however long: a long call takes
// minutes, past the client library's default of 60 polls. --timeout DURATION
// (default none) or --max-attempts N (default none) give up sooner, with exit
// status 4; Ctrl-C stops waiting with 130. Either way the job keeps running on
// the service, and `callscribe wait JOB_ID` picks it up. While it waits the
// status shows the time so far and an estimate: the audio length times 0.3,
// what the embedded speech engine takes; another engine or a queue of other
// jobs changes it, so it is only an estimate.
//
// Completion: `source <(callscribe completion bash)`; `callscribe completion
// zsh > "${fpath[1]}/_callscribe"`; `callscribe completion fish >
// ~/.config/fish/completions/callscribe.fish`.
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
// Output: results go to stdout, status to stderr. transcribe --wait prints each
// transcript (--format text, also spelt txt: one line per turn; json, srt or
// vtt: the API's export) on stdout or into --output, after a "==> FILE <=="
// line when there are several files. Its status, on a terminal, is an upload
// bar per file that turns into a status line while it polls; otherwise one
// tab-separated line per file (file, job id, status) when the job is created,
// one every 30 s while it runs (adding the time so far and the estimate), and
// one when it ends. Without --wait the created lines are the result, on
// stdout. --quiet (-q) silences status lines. --json makes the output JSON:
// the jobs (transcribe --wait, wait, summarize, tag), created jobs, lists and
// usage, one object per line.
//
// Errors are one line on stderr with the code, the message and the requestId:
//
//	callscribe: JOB_NOT_FOUND: Job not found. (requestId 0b6c5c1e-...)
//
// With --json they are one line on stderr in the API's error shape, plus the
// job_id (of a failed or unfinished job) and the file (of a transcribe run)
// when there is one:
//
//	{"error":{"code":"JOB_NOT_FOUND","message":"Job not found."},"requestId":"0b6c5c1e-..."}
//
// Errors of the service keep its code, a failed job its error code; the CLI's
// own are USAGE, NOT_AUTHENTICATED, JOB_STILL_RUNNING, INTERRUPTED and
// CLI_ERROR (files, network).
//
// Exit status:
//
//	0    success
//	1    an API or runtime error, or a failed job
//	2    a usage error: bad flags or arguments
//	3    authentication: no API key or session (or an expired one), or the
//	     service (or its gateway) answered 401
//	4    gave up waiting (--timeout, --max-attempts); the job still runs
//	130  interrupted (Ctrl-C, SIGTERM)
//
// A transcribe run of several files exits with the most serious status of its
// files: 3 before 2, 1 and 4.
package main
