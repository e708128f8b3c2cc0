package storetest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// RunWebhookStoreTests runs the contract of callscribe.WebhookStore. newStores
// returns a job store and a webhook store over the same storage, since
// delivery records belong to jobs.
func RunWebhookStoreTests(t *testing.T, newStores func(t *testing.T) (callscribe.JobStore, callscribe.WebhookStore)) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, jobs callscribe.JobStore, w callscribe.WebhookStore)
	}{
		{"SigningSecretCreateOnce", testSigningSecretCreateOnce},
		{"SigningSecretRotate", testSigningSecretRotate},
		{"DeliveriesRoundTrip", testDeliveriesRoundTrip},
		{"DeliveriesKeepTheNewest", testDeliveriesKeepTheNewest},
		{"DeliveriesOfDeletedAndPurgedJobs", testDeliveriesOfDeletedJob},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs, w := newStores(t)
			tc.fn(t, jobs, w)
		})
	}
}

func testSigningSecretCreateOnce(t *testing.T, _ callscribe.JobStore, w callscribe.WebhookStore) {
	account := newID()
	_, err := w.SigningSecret(t.Context(), account)
	requireCode(t, err, callscribe.CodeNotFound, "SigningSecret before any")

	first := &callscribe.SigningSecret{AccountID: account, Secret: "whsec_Zmlyc3Q=", CreatedAt: baseTime}
	requireNoError(t, w.PutSigningSecret(t.Context(), first, ""), "PutSigningSecret")
	// A second creation loses: the account keeps the first secret.
	second := &callscribe.SigningSecret{AccountID: account, Secret: "whsec_c2Vjb25k", CreatedAt: baseTime.Add(time.Second)}
	requireCode(t, w.PutSigningSecret(t.Context(), second, ""), callscribe.CodeConflict, "second creation")

	got, err := w.SigningSecret(t.Context(), account)
	requireNoError(t, err, "SigningSecret")
	if !reflect.DeepEqual(got, first) {
		t.Fatalf("SigningSecret = %+v, want %+v", got, first)
	}
	_, err = w.SigningSecret(t.Context(), newID())
	requireCode(t, err, callscribe.CodeNotFound, "another account's secret")
}

func testSigningSecretRotate(t *testing.T, _ callscribe.JobStore, w callscribe.WebhookStore) {
	account := newID()
	first := &callscribe.SigningSecret{AccountID: account, Secret: "whsec_Zmlyc3Q=", CreatedAt: baseTime}
	requireNoError(t, w.PutSigningSecret(t.Context(), first, ""), "PutSigningSecret")

	rotated := &callscribe.SigningSecret{
		AccountID: account, Secret: "whsec_bmV4dA==", CreatedAt: baseTime.Add(time.Hour),
		Previous: first.Secret, PreviousValidUntil: baseTime.Add(25 * time.Hour),
	}
	// A rotation that read a secret no longer stored loses.
	requireCode(t, w.PutSigningSecret(t.Context(), rotated, "whsec_c3RhbGU="), callscribe.CodeConflict, "rotation of a stale secret")
	requireNoError(t, w.PutSigningSecret(t.Context(), rotated, first.Secret), "rotation")
	got, err := w.SigningSecret(t.Context(), account)
	requireNoError(t, err, "SigningSecret")
	if !reflect.DeepEqual(got, rotated) {
		t.Fatalf("SigningSecret after rotation = %+v, want %+v", got, rotated)
	}
	requireCode(t, w.PutSigningSecret(t.Context(), rotated, first.Secret), callscribe.CodeConflict, "the same rotation again")
	requireCode(t, w.PutSigningSecret(t.Context(), &callscribe.SigningSecret{AccountID: newID(), Secret: "whsec_eA==", CreatedAt: baseTime}, first.Secret),
		callscribe.CodeConflict, "rotation of an account without a secret")
}

func newTagsJob(t *testing.T, jobs callscribe.JobStore) *callscribe.Job {
	t.Helper()
	j := newDerived(newID(), newID(), callscribe.TypeTags, callscribe.StatusSucceeded, baseTime)
	mustCreate(t, jobs, j, nil)
	return j
}

func deliveryAttempt(jobID string, attempt int, at time.Time) *callscribe.DeliveryAttempt {
	return &callscribe.DeliveryAttempt{
		JobID: jobID, Attempt: attempt, WebhookID: "6f1d5c3e-3b0a-5d8e-9c61-2f4b8a7e0d11", At: at,
		Host: "receiver.example:8443", Outcome: callscribe.DeliveryAbandoned,
	}
}

func requireDeliveries(t *testing.T, w callscribe.WebhookStore, jobID string, want []*callscribe.DeliveryAttempt) {
	t.Helper()
	got, err := w.Deliveries(t.Context(), jobID)
	requireNoError(t, err, "Deliveries")
	if len(got) != len(want) {
		t.Fatalf("Deliveries: %d attempts, want %d: %s", len(got), len(want), describeDeliveries(got))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("Deliveries[%d] = %s, want %s", i, describeDeliveries(got[i:i+1]), describeDeliveries(want[i:i+1]))
		}
	}
}

func describeDeliveries(ds []*callscribe.DeliveryAttempt) string {
	s := ""
	for _, d := range ds {
		next := "nil"
		if d.NextAttemptAt != nil {
			next = d.NextAttemptAt.Format(time.RFC3339Nano)
		}
		s += fmt.Sprintf("{%s #%d %s %s %d %q %s next=%s} ", d.JobID, d.Attempt, d.At.Format(time.RFC3339Nano), d.Host, d.StatusCode, d.Error, d.Outcome, next)
	}
	return s
}

func testDeliveriesRoundTrip(t *testing.T, jobs callscribe.JobStore, w callscribe.WebhookStore) {
	j := newTagsJob(t, jobs)
	other := newTagsJob(t, jobs)
	requireDeliveries(t, w, j.ID, nil)

	first := deliveryAttempt(j.ID, 1, baseTime)
	first.StatusCode, first.Error, first.Outcome = 503, "callback receiver answered 503 Service Unavailable", callscribe.DeliveryRetrying
	first.NextAttemptAt = ptr(baseTime.Add(61 * time.Second))
	second := deliveryAttempt(j.ID, 2, baseTime.Add(61*time.Second))
	second.Error = "POST to receiver.example:8443 failed: connection refused" // no response: status 0
	second.Outcome, second.NextAttemptAt = callscribe.DeliveryRetrying, ptr(baseTime.Add(3*time.Minute))
	third := deliveryAttempt(j.ID, 3, baseTime.Add(3*time.Minute))
	third.StatusCode, third.Outcome = 204, callscribe.DeliveryDelivered

	for _, d := range []*callscribe.DeliveryAttempt{second, first, third} { // order of recording does not matter
		requireNoError(t, w.RecordDelivery(t.Context(), d), fmt.Sprintf("RecordDelivery #%d", d.Attempt))
	}
	// A redelivered message records the same attempt twice; one is kept.
	requireNoError(t, w.RecordDelivery(t.Context(), third), "RecordDelivery again")
	requireDeliveries(t, w, j.ID, []*callscribe.DeliveryAttempt{third, second, first})
	requireDeliveries(t, w, other.ID, nil)

	requireCode(t, w.RecordDelivery(t.Context(), deliveryAttempt(newID(), 1, baseTime)), callscribe.CodeJobNotFound, "RecordDelivery of a missing job")
	requireDeliveries(t, w, newID(), nil)
	// Recording does not disturb the job.
	got, err := jobs.GetJob(t.Context(), j.ID)
	requireNoError(t, err, "GetJob")
	assertJobEqual(t, j, got)
}

func testDeliveriesKeepTheNewest(t *testing.T, jobs callscribe.JobStore, w callscribe.WebhookStore) {
	j := newTagsJob(t, jobs)
	const recorded = callscribe.MaxDeliveriesPerJob + 5
	var all []*callscribe.DeliveryAttempt
	for i := range recorded {
		d := deliveryAttempt(j.ID, i%3+1, baseTime.Add(time.Duration(i)*time.Minute))
		requireNoError(t, w.RecordDelivery(t.Context(), d), "RecordDelivery")
		all = append([]*callscribe.DeliveryAttempt{d}, all...)
	}
	requireDeliveries(t, w, j.ID, all[:callscribe.MaxDeliveriesPerJob])
}

func testDeliveriesOfDeletedJob(t *testing.T, jobs callscribe.JobStore, w callscribe.WebhookStore) {
	j := newTagsJob(t, jobs)
	kept := newTagsJob(t, jobs)
	requireNoError(t, w.RecordDelivery(t.Context(), deliveryAttempt(j.ID, 1, baseTime)), "RecordDelivery")
	keptAttempt := deliveryAttempt(kept.ID, 1, baseTime)
	requireNoError(t, w.RecordDelivery(t.Context(), keptAttempt), "RecordDelivery")

	requireNoError(t, jobs.DeleteJob(t.Context(), j.ID, baseTime.Add(time.Hour)), "DeleteJob")
	requireDeliveries(t, w, j.ID, nil)
	requireCode(t, w.RecordDelivery(t.Context(), deliveryAttempt(j.ID, 2, baseTime.Add(time.Minute))), callscribe.CodeJobNotFound, "RecordDelivery after DeleteJob")

	if _, err := jobs.PurgeDeletedJobs(t.Context(), baseTime.Add(2*time.Hour)); err != nil {
		t.Fatalf("PurgeDeletedJobs: %v", err)
	}
	requireDeliveries(t, w, j.ID, nil)
	requireDeliveries(t, w, kept.ID, []*callscribe.DeliveryAttempt{keptAttempt})
}
