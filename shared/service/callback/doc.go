// Package callback holds the delivery mechanics of the tagDelivered event: the
// payload, the validation of caller-supplied callback fields, a Notifier that
// makes one guarded HTTP attempt per call, its signature, and Webhooks, which
// keeps each account's signing secret and each job's record of attempts.
//
// Retries themselves are not here: each attempt is its own queue message (see
// callscribe.Message.Attempt), delayed by the backoff in the queue itself (SQS
// DelaySeconds, the embedded queue's visible_at), so a restart between
// attempts loses nothing and no timer waits in memory. The pipeline calls
// Notifier.Deliver once per message and, on error, enqueues the next attempt
// as the retry policy says (callscribe's retrypolicy.go: how many attempts,
// CallbackBackoff's delays, the attempt timeout).
//
// Signing follows Standard Webhooks (https://www.standardwebhooks.com/):
// webhook-id is the message's msg_id, the same on every attempt;
// webhook-timestamp the attempt's Unix seconds; webhook-signature
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>" per active secret. An
// account's secret ("whsec_" + base64 of 32 random bytes) is created by the
// first delivery or dashboard read that needs it; a rotation keeps the
// replaced secret signing beside the new one for SigningSecretOverlap, so a
// receiver can switch without rejecting a delivery. The secret is stored as
// is: signing needs it, unlike an API key, which the service only recognises.
//
// Each attempt is recorded (callscribe.DeliveryAttempt) after it ends, from
// what the worker knows then: the time, the URL's host (never its path or
// query), the status or transport error, the outcome and the next attempt's
// due time. A record that cannot be written is logged, not retried: retrying
// the message would send the callback again.
package callback
