package client_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
	"github.com/callscribe/callscribe/shared/stack/config"
)

func TestSessionKeysAndUsage(t *testing.T) {
	ctx := t.Context()
	c, err := client.New(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.IdentityConfig(ctx)
	if err != nil || id.Kind != client.IdentityLocal {
		t.Fatalf("identity %+v, %v", id, err)
	}
	email := newEmail()
	if err := c.Signup(ctx, email, testPassword); err != nil {
		t.Fatal(err)
	}
	if err := c.Signup(ctx, email, testPassword); !client.IsCode(err, client.CodeEmailTaken) || client.ErrorStatus(err) != http.StatusConflict {
		t.Errorf("second signup: %v", err)
	}
	if err := c.Signup(ctx, "not-an-email", testPassword); !client.IsCode(err, client.CodeInvalidSignup) {
		t.Errorf("bad signup: %v", err)
	}
	if _, err := c.Login(ctx, email, "wrong-password-123"); !client.IsUnauthorized(err) {
		t.Errorf("wrong password: %v", err)
	}
	s, err := c.Login(ctx, email, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	if s.Token == "" || s.Identity != client.IdentityLocal || time.Until(s.ExpiresAt) < time.Minute {
		t.Errorf("session %+v", s)
	}
	sc := c.With(client.WithSessionToken(s.Token))

	u, err := sc.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u.LimitMinutes != quotaMinutes || u.UsedMinutes != 0 || u.RemainingMinutes != quotaMinutes || u.RequestID == "" {
		t.Errorf("usage %+v", u)
	}

	k1, err := sc.CreateAPIKey(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	k2, err := sc.CreateAPIKey(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if k1.ID == "" || k1.Secret == "" || k1.CreatedAt.IsZero() || k1.ID == k2.ID {
		t.Errorf("keys %+v %+v", k1, k2)
	}
	keys, err := sc.ListAPIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, k := range keys {
		listed = append(listed, k.ID)
		if k.Prefix == "" || k.CreatedAt.IsZero() {
			t.Errorf("listed key %+v", k)
		}
	}
	if !slices.Contains(listed, k1.ID) || !slices.Contains(listed, k2.ID) {
		t.Errorf("listed %v, want %s and %s", listed, k1.ID, k2.ID)
	}

	// The key works on the API; its use shows in usage.
	api := c.With(client.WithAPIKey(k1.Secret))
	if _, err := api.Transcribe(ctx, "call.wav", client.TranscribeOptions{WaitOptions: fast}); err != nil {
		t.Fatal(err)
	}
	if u, err := sc.Usage(ctx); err != nil || u.UsedMinutes <= 0 || u.RemainingMinutes >= quotaMinutes {
		t.Errorf("usage after a job: %+v, %v", u, err)
	}

	// Credentials are not interchangeable.
	if _, err := api.Usage(ctx); !client.IsUnauthorized(err) {
		t.Errorf("usage with an API key: %v", err)
	}
	if _, err := c.With(client.WithAPIKey(s.Token)).ListJobs(ctx, client.ListOptions{}); !client.IsUnauthorized(err) {
		t.Errorf("API route with a session token: %v", err)
	}
	if _, err := c.Usage(ctx); !client.IsUnauthorized(err) {
		t.Errorf("usage without a session: %v", err)
	}

	if err := sc.RevokeAPIKey(ctx, k1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := api.ListJobs(ctx, client.ListOptions{}); !client.IsUnauthorized(err) {
		t.Errorf("revoked key: %v", err)
	}
	keys, _ = sc.ListAPIKeys(ctx)
	for _, k := range keys {
		if k.ID == k1.ID {
			t.Errorf("revoked key still listed: %+v", k)
		}
	}
}

// A deployment behind a gateway key: every request to the service carries it.
func TestGatewayKey(t *testing.T) {
	url := startTestStack(t, func(cfg *config.Config) { cfg.GatewayKey = "gw-secret" })
	c, _ := client.New(url)
	if _, err := c.IdentityConfig(t.Context()); !client.IsUnauthorized(err) {
		t.Fatalf("without the gateway key: %v", err)
	}
	c = accountAt(t, url, client.WithGatewayKey("gw-secret"), client.WithDirectUploadMaxBytes(10_000))
	// Two-step too: the service's routes get the key, storage does not need it.
	job, err := c.Transcribe(t.Context(), "call.wav", client.TranscribeOptions{WaitOptions: fast})
	if err != nil || job.Status != client.StatusSucceeded {
		t.Fatalf("through the gateway: %+v, %v", job, err)
	}
}

// Login on a Cognito identity calls the user pool's InitiateAuth as the
// dashboard page does. The user pool here is a stand-in that checks the
// request Cognito's JSON protocol requires.
func TestCognitoLogin(t *testing.T) {
	var calls []string
	cognito := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := r.Header.Get("X-Amz-Target")
		calls = append(calls, target)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		var in map[string]any
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-amz-json-1.1" || json.Unmarshal(body, &in) != nil || in["ClientId"] != "app-client" {
			w.WriteHeader(400)
			w.Write([]byte(`{"__type":"InvalidParameterException","message":"bad request"}`))
			return
		}
		switch target {
		case "AWSCognitoIdentityProviderService.InitiateAuth":
			params, _ := in["AuthParameters"].(map[string]any)
			if in["AuthFlow"] != "USER_PASSWORD_AUTH" || params["USERNAME"] != "ann@example.com" || params["PASSWORD"] != testPassword {
				w.Header().Set("X-Amzn-ErrorType", "NotAuthorizedException:")
				w.WriteHeader(400)
				w.Write([]byte(`{"__type":"com.amazonaws.cognito#NotAuthorizedException","message":"Incorrect username or password."}`))
				return
			}
			w.Write([]byte(`{"AuthenticationResult":{"IdToken":"id-token","AccessToken":"access","ExpiresIn":600,"TokenType":"Bearer"}}`))
		case "AWSCognitoIdentityProviderService.SignUp":
			w.Write([]byte(`{"UserConfirmed":false,"UserSub":"sub"}`))
		case "AWSCognitoIdentityProviderService.ConfirmSignUp":
			w.Write([]byte(`{}`))
		}
	}))
	defer cognito.Close()
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/dashboard/config" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"identity": map[string]any{
			"kind": "cognito", "region": "eu-west-1", "client_id": "app-client", "endpoint": cognito.URL + "/",
		}, "requestId": "r1"})
	}))
	defer service.Close()

	c, _ := client.New(service.URL)
	ctx := t.Context()
	s, err := c.Login(ctx, "ann@example.com", testPassword)
	if err != nil {
		t.Fatal(err)
	}
	if s.Token != "id-token" || s.Identity != client.IdentityCognito || time.Until(s.ExpiresAt) > 601*time.Second || time.Until(s.ExpiresAt) < 590*time.Second {
		t.Errorf("session %+v", s)
	}
	_, err = c.Login(ctx, "ann@example.com", "wrong")
	if !client.IsCode(err, "NotAuthorizedException") || client.ErrorStatus(err) != 400 {
		t.Errorf("wrong password: %v", err)
	}
	if err := c.Signup(ctx, "ann@example.com", testPassword); !errors.Is(err, client.ErrConfirmationRequired) {
		t.Errorf("signup: %v", err)
	}
	if err := c.ConfirmSignup(ctx, "ann@example.com", "123456"); err != nil {
		t.Errorf("confirm: %v", err)
	}
	if len(calls) != 4 {
		t.Errorf("Cognito calls %v", calls)
	}
}
