package client

// NoAttemptLimit, as WaitOptions.MaxAttempts (any negative value does), makes
// WaitForJob and Transcribe poll until the job succeeds or fails, however long
// that takes: only the context (its deadline, its cancellation) ends the wait
// sooner. A long call can take minutes to transcribe, longer than the spec's
// default of 60 polls 2 s apart; bound such a wait with context.WithTimeout:
//
//	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
//	defer cancel()
//	job, err := c.Transcribe(ctx, "call.wav", client.TranscribeOptions{
//		WaitOptions: client.WaitOptions{MaxAttempts: client.NoAttemptLimit},
//	})
//
// When the context ends first, the error is the context's (errors.Is with
// context.DeadlineExceeded or context.Canceled) and the job read last, if
// any, comes back with it: the job itself keeps running on the service.
const NoAttemptLimit = -1
