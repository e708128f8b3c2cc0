// Package service groups the use cases of callscribe, written against the
// domain's ports (package callscribe) and nothing else:
//   - jobs: what a request may do — uploads and their checks, derived-job
//     source checks, ownership, quota, accounts and API keys, listing, and
//     the job state changes the workers ask for. The HTTP handlers and the
//     workers both call it.
//   - pipeline: the worker — runs a queued message (transcribe, derive,
//     deliver a callback) with the configured engines and decides on retries.
//   - callback: the tagDelivered payload, its delivery over HTTP, and the
//     guard that keeps callback addresses off private networks.
//   - identity: password hashes, API keys, signed sessions.
//   - ratelimit: in-process token buckets and failed-attempt windows.
package service
