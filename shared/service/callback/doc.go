// Package callback holds the delivery mechanics of the tagDelivered event: the
// payload, the validation of caller-supplied callback fields, and a Notifier
// that makes one guarded HTTP attempt per call.
//
// Retries themselves are not here: each attempt is its own queue message (see
// callscribe.Message.Attempt), so a restart between attempts loses nothing. The
// pipeline calls Notifier.Deliver once per message and, on error, enqueues the
// next attempt as the retry policy says (callscribe's retrypolicy.go: how many
// attempts, CallbackBackoff's delays, the attempt timeout).
package callback
