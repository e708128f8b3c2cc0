package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// IdentityConfig returns where dashboard users sign up and sign in
// (GET /dashboard/config, no credentials needed).
func (c *Client) IdentityConfig(ctx context.Context) (*IdentityConfig, error) {
	var body DashboardConfig
	req := &request{method: http.MethodGet, path: "/dashboard/config", idempotent: true}
	if err := c.call(ctx, req, &body); err != nil {
		return nil, err
	}
	if body.Identity.Kind == "" {
		body.Identity.Kind = IdentityLocal
	}
	return &body.Identity, nil
}

// ErrConfirmationRequired is returned by Signup on a Cognito identity whose
// user pool wants the emailed confirmation code: the account exists, and
// ConfirmSignup with the code finishes it.
var ErrConfirmationRequired = errors.New("callscribe: the account needs the confirmation code sent by email")

// Signup creates a dashboard account: POST /dashboard/signup on the local
// identity, Cognito's SignUp where IdentityConfig says the identity is Cognito.
// Errors: 409 EMAIL_TAKEN, 400 INVALID_SIGNUP (locally); Cognito's own
// exception names as Code (UsernameExistsException, InvalidPasswordException).
func (c *Client) Signup(ctx context.Context, email, password string) error {
	id, err := c.IdentityConfig(ctx)
	if err != nil {
		return err
	}
	if id.Kind == IdentityCognito {
		var out struct {
			UserConfirmed bool `json:"UserConfirmed"`
		}
		err := c.cognito(ctx, id, "SignUp", map[string]any{
			"ClientId": id.ClientID, "Username": email, "Password": password,
			"UserAttributes": []map[string]string{{"Name": "email", "Value": email}},
		}, &out)
		if err != nil {
			return err
		}
		if !out.UserConfirmed {
			return ErrConfirmationRequired
		}
		return nil
	}
	req, err := jsonRequest("/dashboard/signup", authNone, CredentialsRequest{Email: email, Password: password})
	if err != nil {
		return err
	}
	return c.call(ctx, req, nil)
}

// ConfirmSignup confirms a Cognito sign-up with the emailed code (Cognito
// identities only; the local identity needs no confirmation).
func (c *Client) ConfirmSignup(ctx context.Context, email, code string) error {
	id, err := c.IdentityConfig(ctx)
	if err != nil {
		return err
	}
	if id.Kind != IdentityCognito {
		return nil
	}
	return c.cognito(ctx, id, "ConfirmSignUp", map[string]any{"ClientId": id.ClientID, "Username": email, "ConfirmationCode": code}, nil)
}

// Login signs in to the dashboard and returns the session; use it with
// c.With(WithSessionToken(s.Token)). The local identity signs in with
// POST /dashboard/login; a Cognito identity (IdentityConfig) with the user
// pool's InitiateAuth (USER_PASSWORD_AUTH), whose ID token is the session, as
// the dashboard page does. A wrong password is a 401 locally and Cognito's
// NotAuthorizedException (as Code, Status 400) on Cognito.
func (c *Client) Login(ctx context.Context, email, password string) (*Session, error) {
	id, err := c.IdentityConfig(ctx)
	if err != nil {
		return nil, err
	}
	if id.Kind == IdentityCognito {
		var out struct {
			ChallengeName        string `json:"ChallengeName"`
			AuthenticationResult *struct {
				IDToken   string `json:"IdToken"`
				ExpiresIn int    `json:"ExpiresIn"`
			} `json:"AuthenticationResult"`
		}
		err := c.cognito(ctx, id, "InitiateAuth", map[string]any{
			"AuthFlow": "USER_PASSWORD_AUTH", "ClientId": id.ClientID,
			"AuthParameters": map[string]string{"USERNAME": email, "PASSWORD": password},
		}, &out)
		if err != nil {
			return nil, err
		}
		if out.AuthenticationResult == nil || out.AuthenticationResult.IDToken == "" {
			return nil, &Error{Code: "SIGN_IN_CHALLENGE", Message: fmt.Sprintf("Cognito asks for a %q step this client does not support; sign in with the AWS CLI.", out.ChallengeName)}
		}
		exp := out.AuthenticationResult.ExpiresIn
		if exp <= 0 {
			exp = 3600
		}
		return &Session{Token: out.AuthenticationResult.IDToken, ExpiresAt: time.Now().Add(time.Duration(exp) * time.Second), Identity: IdentityCognito}, nil
	}
	req, err := jsonRequest("/dashboard/login", authNone, CredentialsRequest{Email: email, Password: password})
	if err != nil {
		return nil, err
	}
	var out LoginSession
	if err := c.call(ctx, req, &out); err != nil {
		return nil, err
	}
	return &Session{Token: out.Token, ExpiresAt: out.ExpiresAt, Identity: IdentityLocal}, nil
}

// cognito makes one call to a Cognito user pool's JSON API, unsigned, as the
// public app client calls it. Its errors are *Errors with the exception name
// (without the namespace) as Code.
func (c *Client) cognito(ctx context.Context, id *IdentityConfig, action string, in, out any) error {
	endpoint := id.Endpoint
	if endpoint == "" {
		if id.Region == "" {
			return errors.New("callscribe: the Cognito identity names neither an endpoint nor a region")
		}
		endpoint = "https://cognito-idp." + id.Region + ".amazonaws.com/"
	}
	// An endpoint relative to the service (a stand-in served beside it).
	if u, err := url.Parse(endpoint); err == nil && !u.IsAbs() {
		endpoint = c.baseURL.ResolveReference(u).String()
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req := &request{
		method: http.MethodPost, rawURL: endpoint, contentType: "application/x-amz-json-1.1",
		body:          func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		contentLength: int64(len(b)),
		header:        http.Header{"X-Amz-Target": {"AWSCognitoIdentityProviderService." + action}},
	}
	resp, err := c.do(ctx, req)
	var apiErr *Error
	if errors.As(err, &apiErr) {
		cognitoError(apiErr)
		return apiErr
	}
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(resp.body, out); err != nil {
			return fmt.Errorf("callscribe: decoding Cognito's %s answer: %w", action, err)
		}
	}
	return nil
}

// cognitoError turns Cognito's {"__type","message"} into the *Error's code and message.
func cognitoError(e *Error) {
	if len(e.raw) == 0 {
		return
	}
	var body struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	if json.Unmarshal(e.raw, &body) != nil {
		return
	}
	kind := body.Type
	if kind == "" {
		kind = e.header.Get("X-Amzn-ErrorType")
	}
	if kind == "" {
		return
	}
	kind, _, _ = strings.Cut(kind, ":")
	if i := strings.LastIndex(kind, "#"); i >= 0 {
		kind = kind[i+1:]
	}
	e.Code = kind
	if body.Message != "" {
		e.Message = body.Message
	}
	if rid := e.header.Get("X-Amzn-Requestid"); rid != "" && e.RequestID == "" {
		e.RequestID = rid
	}
}

// Usage returns the account's transcription minute quota state
// (GET /v1/transcriptions/usage; dashboard session only).
func (c *Client) Usage(ctx context.Context) (*Usage, error) {
	var u Usage
	req := &request{method: http.MethodGet, path: "/v1/transcriptions/usage", auth: authSession, idempotent: true}
	if err := c.call(ctx, req, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// CreateAPIKey creates an API key of the session's account. The service does
// not store key names yet: name is sent (as {"name": ...}) and ignored by the
// current service.
func (c *Client) CreateAPIKey(ctx context.Context, name string) (*CreatedAPIKey, error) {
	body := map[string]string{}
	if name != "" {
		body["name"] = name
	}
	req, err := jsonRequest("/dashboard/api-keys", authSession, body)
	if err != nil {
		return nil, err
	}
	var k CreatedAPIKey
	if err := c.call(ctx, req, &k); err != nil {
		return nil, err
	}
	return &k, nil
}

// ListAPIKeys lists the session account's API keys (without secrets).
func (c *Client) ListAPIKeys(ctx context.Context) ([]APIKey, error) {
	var body APIKeyList
	req := &request{method: http.MethodGet, path: "/dashboard/api-keys", auth: authSession, idempotent: true}
	if err := c.call(ctx, req, &body); err != nil {
		return nil, err
	}
	if body.ApiKeys == nil {
		body.ApiKeys = []APIKey{}
	}
	return body.ApiKeys, nil
}

// RevokeAPIKey revokes one of the session account's API keys.
func (c *Client) RevokeAPIKey(ctx context.Context, id string) error {
	req := &request{method: http.MethodDelete, path: "/dashboard/api-keys/" + escape(id), auth: authSession, idempotent: true}
	return c.call(ctx, req, nil)
}

// DailyUsage returns the minutes per UTC day of month ("YYYY-MM"; "" for the
// current month) and of the month before it, every day included, and the top
// upload languages by minutes (GET /dashboard/usage/daily; dashboard session).
func (c *Client) DailyUsage(ctx context.Context, month string) (*DailyUsage, error) {
	var u DailyUsage
	req := &request{method: http.MethodGet, path: "/dashboard/usage/daily", auth: authSession, idempotent: true}
	if month != "" {
		req.query = url.Values{"month": {month}}
	}
	if err := c.call(ctx, req, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// Limits returns the deployment's upload and listing limits (GET
// /dashboard/limits; dashboard session).
func (c *Client) Limits(ctx context.Context) (*Limits, error) {
	var l Limits
	req := &request{method: http.MethodGet, path: "/dashboard/limits", auth: authSession, idempotent: true}
	if err := c.call(ctx, req, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// Health checks that the service answers (GET /healthz, no credentials).
func (c *Client) Health(ctx context.Context) error {
	req := &request{method: http.MethodGet, path: "/healthz", idempotent: true}
	return c.call(ctx, req, nil)
}
