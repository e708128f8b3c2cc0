package apitest

import (
	"testing"
	"time"
)

// RunWebhooksE2E runs the dashboard's webhook screens in a real browser
// (e2e/webhooks.e2e.mjs): the signing secret on the keys page verifies the
// deliveries a local receiver got (checked in JavaScript), rotation says how
// long the previous secret lasts, and a tags job's page lists its attempts.
// The target must allow callbacks to 127.0.0.1 and retry within a second,
// and sign in with the local identity. Screenshots: runBrowserScript.
func RunWebhooksE2E(t *testing.T, target Target) {
	t.Helper()
	runBrowserScript(t, target, "webhooks.e2e.mjs", 2*time.Minute)
}
