// Package storetest holds the contract test suites of the storage ports of package
// callscribe. Every implementation (the embedded SQLite store, DynamoDB, ...) runs
// the same suite from its own tests, so the suites test only what the port
// promises, never how a particular database keeps it.
//
// The suites ask for a fresh store per subtest. They still use random account ids,
// job ids and emails everywhere, so an implementation whose "fresh" store shares
// a table with earlier subtests is not confused by earlier data, with one
// exception: UnfinishedJobIDs is not scoped to an account, so its subtest needs a
// store that is really empty.
package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// baseTime has a non-zero nanosecond part on purpose: stores must keep
// nanoseconds, and a store that rounds to micro- or milliseconds fails.
var baseTime = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

func newID() string { return uuid.NewString() }

func ptr[T any](v T) *T { return &v }

// requireCode fails the test unless err carries the given *callscribe.Error code.
func requireCode(t *testing.T, err error, code string, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got nil error, want %s", what, code)
	}
	if !callscribe.IsCode(err, code) {
		t.Fatalf("%s: got error %v (code %q), want code %s", what, err, callscribe.ErrorCode(err), code)
	}
}

func requireNoError(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// jsonEqual compares two JSON documents semantically (key order and whitespace
// do not matter). Two empty documents are equal; an empty and a non-empty one
// are not.
func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	if len(bytes.TrimSpace(a)) == 0 || len(bytes.TrimSpace(b)) == 0 {
		return len(bytes.TrimSpace(a)) == len(bytes.TrimSpace(b))
	}
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("invalid JSON %q: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// assertJobEqual compares every field of a job. Type is compared after
// OrDefault on want, because a job stored without a type reads back as a
// transcription.
func assertJobEqual(t *testing.T, want, got *callscribe.Job) {
	t.Helper()
	if got == nil {
		t.Fatalf("job %s: got nil job", want.ID)
	}
	check := func(field string, ok bool, w, g any) {
		t.Helper()
		if !ok {
			t.Errorf("job %s: %s = %#v, want %#v", want.ID, field, g, w)
		}
	}
	check("ID", got.ID == want.ID, want.ID, got.ID)
	check("AccountID", got.AccountID == want.AccountID, want.AccountID, got.AccountID)
	check("Type", got.Type == want.Type.OrDefault(), want.Type.OrDefault(), got.Type)
	check("Status", got.Status == want.Status, want.Status, got.Status)
	check("SourceJobID", got.SourceJobID == want.SourceJobID, want.SourceJobID, got.SourceJobID)
	check("OriginalFilename", reflect.DeepEqual(got.OriginalFilename, want.OriginalFilename), derefString(want.OriginalFilename), derefString(got.OriginalFilename))
	check("Language", got.Language == want.Language, want.Language, got.Language)
	check("AudioSeconds", got.AudioSeconds == want.AudioSeconds, want.AudioSeconds, got.AudioSeconds)
	check("AudioKey", got.AudioKey == want.AudioKey, want.AudioKey, got.AudioKey)
	check("AudioFormat", got.AudioFormat == want.AudioFormat, want.AudioFormat, got.AudioFormat)
	check("Metadata", jsonEqual(t, want.Metadata, got.Metadata), string(want.Metadata), string(got.Metadata))
	check("Keyterms", slices.Equal(got.Keyterms, want.Keyterms), want.Keyterms, got.Keyterms)
	check("RedactPII", got.RedactPII == want.RedactPII, want.RedactPII, got.RedactPII)
	check("Input", reflect.DeepEqual(got.Input, want.Input), want.Input, got.Input)
	check("Callback", reflect.DeepEqual(got.Callback, want.Callback), want.Callback, got.Callback)
	check("Result", jsonEqual(t, want.Result, got.Result), string(want.Result), string(got.Result))
	check("Error", reflect.DeepEqual(got.Error, want.Error), want.Error, got.Error)
	check("QuotaMonth", got.QuotaMonth == want.QuotaMonth, want.QuotaMonth, got.QuotaMonth)
	check("Attempts", got.Attempts == want.Attempts, want.Attempts, got.Attempts)
	check("CreatedAt", got.CreatedAt.Equal(want.CreatedAt), want.CreatedAt.Format(time.RFC3339Nano), got.CreatedAt.Format(time.RFC3339Nano))
	check("UpdatedAt", got.UpdatedAt.Equal(want.UpdatedAt), want.UpdatedAt.Format(time.RFC3339Nano), got.UpdatedAt.Format(time.RFC3339Nano))
}

func derefString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func asError(err error, target **callscribe.Error) bool { return errors.As(err, target) }
