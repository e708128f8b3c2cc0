package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// RunAccountStoreTests runs the AccountStore contract against stores made by
// newStore, called once per subtest. Emails, account ids and key hashes are
// random, so a shared backing table does not disturb the suite.
func RunAccountStoreTests(t *testing.T, newStore func(t *testing.T) callscribe.AccountStore) {
	tests := []struct {
		name string
		run  func(t *testing.T, s callscribe.AccountStore)
	}{
		{"Account/CreateAndFindByEmail", testAccountRoundTrip},
		{"Account/EmailIsCaseInsensitive", testAccountEmailCase},
		{"Account/DuplicateEmailIsTaken", testAccountDuplicateEmail},
		{"Account/UnknownEmailIsNotFound", testAccountUnknownEmail},
		{"APIKey/CreateAndFindByHash", testAPIKeyRoundTrip},
		{"APIKey/UnknownHashIsNotFound", testAPIKeyUnknownHash},
		{"APIKey/TouchRecordsLastUse", testAPIKeyTouch},
		{"APIKey/ListNewestFirstOnlyLiveKeysOfTheAccount", testAPIKeyList},
		{"APIKey/Revoke", testAPIKeyRevoke},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
}

func newAccount() *callscribe.Account {
	id := newID()
	return &callscribe.Account{
		ID:           id,
		Email:        "user-" + id + "@example.com",
		PasswordHash: "$2a$10$" + strings.Repeat("x", 53),
		CreatedAt:    baseTime,
	}
}

func newAPIKey(accountID string, createdAt time.Time) *callscribe.APIKey {
	secret := "cs_" + newID()
	sum := sha256.Sum256([]byte(secret))
	return &callscribe.APIKey{
		ID:        newID(),
		AccountID: accountID,
		Prefix:    secret[:10],
		Hash:      hex.EncodeToString(sum[:]),
		CreatedAt: createdAt,
	}
}

func mustCreateAccount(t *testing.T, s callscribe.AccountStore, a *callscribe.Account) {
	t.Helper()
	requireNoError(t, s.CreateAccount(t.Context(), a), "CreateAccount")
}

func mustCreateKey(t *testing.T, s callscribe.AccountStore, k *callscribe.APIKey) {
	t.Helper()
	requireNoError(t, s.CreateAPIKey(t.Context(), k), "CreateAPIKey")
}

func assertAccountEqual(t *testing.T, want, got *callscribe.Account) {
	t.Helper()
	if got == nil {
		t.Fatal("got nil account")
	}
	if got.ID != want.ID || got.Email != want.Email || got.PasswordHash != want.PasswordHash || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("account = %+v, want %+v", got, want)
	}
}

func assertKeyEqual(t *testing.T, want, got *callscribe.APIKey) {
	t.Helper()
	if got == nil {
		t.Fatal("got nil API key")
	}
	sameLastUse := (got.LastUsedAt == nil) == (want.LastUsedAt == nil) &&
		(got.LastUsedAt == nil || got.LastUsedAt.Equal(*want.LastUsedAt))
	if got.ID != want.ID || got.AccountID != want.AccountID || got.Prefix != want.Prefix || got.Hash != want.Hash ||
		!got.CreatedAt.Equal(want.CreatedAt) || !sameLastUse {
		t.Fatalf("API key = %+v (last used %v), want %+v (last used %v)", got, got.LastUsedAt, want, want.LastUsedAt)
	}
}

func testAccountRoundTrip(t *testing.T, s callscribe.AccountStore) {
	a := newAccount()
	mustCreateAccount(t, s, a)
	got, err := s.AccountByEmail(t.Context(), a.Email)
	requireNoError(t, err, "AccountByEmail")
	assertAccountEqual(t, a, got)
}

func testAccountEmailCase(t *testing.T, s callscribe.AccountStore) {
	a := newAccount()
	a.Email = "Mixed.Case-" + a.ID + "@Example.COM"
	mustCreateAccount(t, s, a)
	for _, email := range []string{strings.ToLower(a.Email), strings.ToUpper(a.Email), a.Email} {
		got, err := s.AccountByEmail(t.Context(), email)
		requireNoError(t, err, "AccountByEmail "+email)
		// The address is kept as the user typed it.
		assertAccountEqual(t, a, got)
	}
}

func testAccountDuplicateEmail(t *testing.T, s callscribe.AccountStore) {
	a := newAccount()
	mustCreateAccount(t, s, a)
	for _, email := range []string{a.Email, strings.ToUpper(a.Email)} {
		dup := newAccount()
		dup.Email = email
		requireCode(t, s.CreateAccount(t.Context(), dup), callscribe.CodeEmailTaken, "CreateAccount with taken email "+email)
	}
	got, err := s.AccountByEmail(t.Context(), a.Email)
	requireNoError(t, err, "AccountByEmail")
	assertAccountEqual(t, a, got)
}

func testAccountUnknownEmail(t *testing.T, s callscribe.AccountStore) {
	mustCreateAccount(t, s, newAccount())
	got, err := s.AccountByEmail(t.Context(), "nobody-"+newID()+"@example.com")
	requireCode(t, err, callscribe.CodeNotFound, "AccountByEmail of an unknown email")
	if got != nil {
		t.Fatalf("AccountByEmail of an unknown email returned %+v", got)
	}
}

func testAPIKeyRoundTrip(t *testing.T, s callscribe.AccountStore) {
	a := newAccount()
	mustCreateAccount(t, s, a)
	k := newAPIKey(a.ID, baseTime.Add(time.Second))
	mustCreateKey(t, s, k)
	got, err := s.APIKeyByHash(t.Context(), k.Hash)
	requireNoError(t, err, "APIKeyByHash")
	assertKeyEqual(t, k, got)
}

func testAPIKeyUnknownHash(t *testing.T, s callscribe.AccountStore) {
	a := newAccount()
	mustCreateAccount(t, s, a)
	mustCreateKey(t, s, newAPIKey(a.ID, baseTime))
	got, err := s.APIKeyByHash(t.Context(), newAPIKey(a.ID, baseTime).Hash)
	requireCode(t, err, callscribe.CodeNotFound, "APIKeyByHash of an unknown hash")
	if got != nil {
		t.Fatalf("APIKeyByHash of an unknown hash returned %+v", got)
	}
}

func testAPIKeyTouch(t *testing.T, s callscribe.AccountStore) {
	a := newAccount()
	mustCreateAccount(t, s, a)
	k := newAPIKey(a.ID, baseTime)
	other := newAPIKey(a.ID, baseTime)
	mustCreateKey(t, s, k)
	mustCreateKey(t, s, other)

	for _, at := range []time.Time{baseTime.Add(time.Minute + 1), baseTime.Add(time.Hour + 2)} {
		requireNoError(t, s.TouchAPIKey(t.Context(), k.ID, at), "TouchAPIKey")
		got, err := s.APIKeyByHash(t.Context(), k.Hash)
		requireNoError(t, err, "APIKeyByHash")
		k.LastUsedAt = &at
		assertKeyEqual(t, k, got)
	}
	got, err := s.APIKeyByHash(t.Context(), other.Hash)
	requireNoError(t, err, "APIKeyByHash of the untouched key")
	assertKeyEqual(t, other, got)

	keys, err := s.ListAPIKeys(t.Context(), a.ID)
	requireNoError(t, err, "ListAPIKeys")
	for _, listed := range keys {
		if listed.ID == k.ID {
			assertKeyEqual(t, k, listed)
		}
	}
}

func testAPIKeyList(t *testing.T, s callscribe.AccountStore) {
	a, b := newAccount(), newAccount()
	mustCreateAccount(t, s, a)
	mustCreateAccount(t, s, b)
	oldest := newAPIKey(a.ID, baseTime)
	newest := newAPIKey(a.ID, baseTime.Add(2*time.Hour))
	middle := newAPIKey(a.ID, baseTime.Add(time.Hour))
	revoked := newAPIKey(a.ID, baseTime.Add(3*time.Hour))
	foreign := newAPIKey(b.ID, baseTime.Add(90*time.Minute))
	for _, k := range []*callscribe.APIKey{oldest, newest, middle, revoked, foreign} {
		mustCreateKey(t, s, k)
	}
	requireNoError(t, s.RevokeAPIKey(t.Context(), a.ID, revoked.ID), "RevokeAPIKey")

	keys, err := s.ListAPIKeys(t.Context(), a.ID)
	requireNoError(t, err, "ListAPIKeys")
	want := []*callscribe.APIKey{newest, middle, oldest}
	if len(keys) != len(want) {
		t.Fatalf("ListAPIKeys returned %d keys, want %d", len(keys), len(want))
	}
	for i := range want {
		assertKeyEqual(t, want[i], keys[i])
	}

	keys, err = s.ListAPIKeys(t.Context(), newID())
	requireNoError(t, err, "ListAPIKeys of an account without keys")
	if len(keys) != 0 {
		t.Fatalf("ListAPIKeys of an account without keys returned %d keys", len(keys))
	}
}

func testAPIKeyRevoke(t *testing.T, s callscribe.AccountStore) {
	a, b := newAccount(), newAccount()
	mustCreateAccount(t, s, a)
	mustCreateAccount(t, s, b)
	k := newAPIKey(a.ID, baseTime)
	kept := newAPIKey(a.ID, baseTime)
	mustCreateKey(t, s, k)
	mustCreateKey(t, s, kept)

	// Another account cannot revoke it, and an unknown key is not found.
	requireCode(t, s.RevokeAPIKey(t.Context(), b.ID, k.ID), callscribe.CodeNotFound, "RevokeAPIKey by another account")
	if _, err := s.APIKeyByHash(t.Context(), k.Hash); err != nil {
		t.Fatalf("key unusable after another account's revoke attempt: %v", err)
	}
	requireCode(t, s.RevokeAPIKey(t.Context(), a.ID, newID()), callscribe.CodeNotFound, "RevokeAPIKey of an unknown key")

	requireNoError(t, s.RevokeAPIKey(t.Context(), a.ID, k.ID), "RevokeAPIKey")
	_, err := s.APIKeyByHash(t.Context(), k.Hash)
	requireCode(t, err, callscribe.CodeNotFound, "APIKeyByHash of a revoked key")
	requireCode(t, s.RevokeAPIKey(t.Context(), a.ID, k.ID), callscribe.CodeNotFound, "second RevokeAPIKey")

	keys, err := s.ListAPIKeys(t.Context(), a.ID)
	requireNoError(t, err, "ListAPIKeys")
	ids := make([]string, len(keys))
	for i, key := range keys {
		ids[i] = key.ID
	}
	if !slices.Equal(ids, []string{kept.ID}) {
		t.Fatalf("ListAPIKeys after revoke = %v, want only %s", ids, kept.ID)
	}
	if _, err := s.APIKeyByHash(t.Context(), kept.Hash); err != nil {
		t.Fatalf("the other key stopped working: %v", err)
	}
}
