package apitest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/transport/openapi"
)

// testRouting: unknown routes 404 NOT_FOUND, wrong methods 405 with Allow, and
// a fresh requestId on every response.
func (s *suite) testRouting(t *testing.T) {
	seen := map[string]bool{}
	note := func(r *Response) {
		id := r.Str("requestId")
		if seen[id] {
			t.Errorf("%s: requestId %q was already used by another response", r, id)
		}
		seen[id] = true
	}
	r := s.c.do(t, http.MethodGet, "/healthz", nil)
	expectStatus(t, r, http.StatusOK)
	note(r)

	// The OpenAPI document is served as embedded, with no credentials at all.
	doc := s.c.download(t, "/openapi.json", noGateway())
	if doc.Status != http.StatusOK || doc.Header.Get("Content-Type") != "application/json" || !bytes.Equal(doc.Raw, openapi.Document()) {
		t.Errorf("%s: want 200 application/json with the embedded OpenAPI document", doc)
	}

	for _, p := range []struct{ method, path string }{
		{http.MethodGet, "/v1/nope"},
		{http.MethodGet, "/nope"},
		{http.MethodPost, "/v2/transcriptions"},
		{http.MethodGet, "/v1/transcriptions/" + newUUID() + "/extra"},
		{http.MethodGet, "/dashboard/nope"},
	} {
		r := s.c.do(t, p.method, p.path, nil)
		expectError(t, r, http.StatusNotFound, "NOT_FOUND")
		note(r)
	}

	for _, c := range []struct {
		method, path string
		allow        []string
	}{
		{http.MethodPut, "/v1/transcriptions", []string{"GET", "POST"}},
		{http.MethodPatch, "/v1/transcriptions/" + newUUID(), []string{"GET", "DELETE"}},
		{http.MethodGet, "/v1/summarize", []string{"POST"}},
		{http.MethodDelete, "/v1/tag", []string{"POST"}},
		{http.MethodPost, "/v1/transcriptions/usage", []string{"GET"}},
		{http.MethodGet, "/dashboard/login", []string{"POST"}},
		{http.MethodPut, "/dashboard/api-keys", []string{"GET", "POST"}},
	} {
		r := s.c.do(t, c.method, c.path, nil)
		expectError(t, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
		note(r)
		allow := r.Header.Get("Allow")
		for _, m := range c.allow {
			if !headerListHas(allow, m) {
				t.Errorf("%s: Allow %q lacks %s", r, allow, m)
			}
		}
		if headerListHas(allow, c.method) {
			t.Errorf("%s: Allow %q lists the refused method", r, allow)
		}
	}
}

func headerListHas(list, item string) bool {
	for _, p := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(p), item) {
			return true
		}
	}
	return false
}

// testDashboard: signup, login and API-key management.
func (s *suite) testDashboard(t *testing.T) {
	t.Run("Signup", func(t *testing.T) {
		email := newEmail()
		r := s.c.postJSON(t, "/dashboard/signup", map[string]string{"email": email, "password": "0123456789"}) // exactly 10
		if expectStatus(t, r, http.StatusCreated) && r.Str("account_id") == "" {
			t.Errorf("%s: no account_id", r)
		}
		r = s.c.postJSON(t, "/dashboard/signup", map[string]string{"email": email, "password": "another-long-password"})
		expectError(t, r, http.StatusConflict, "EMAIL_TAKEN")

		for _, bad := range []map[string]string{
			{"email": "not-an-email", "password": testPassword},
			{"email": "", "password": testPassword},
			{"email": "@example.com", "password": testPassword},
			{"email": "two words@example.com", "password": testPassword},
			{"password": testPassword},
			{"email": newEmail(), "password": "012345678"}, // 9 characters
			{"email": newEmail(), "password": ""},
			{"email": newEmail()},
		} {
			r := s.c.postJSON(t, "/dashboard/signup", bad)
			expectError(t, r, http.StatusBadRequest, "INVALID_SIGNUP")
		}
	})

	t.Run("Login", func(t *testing.T) {
		a := s.newAccount(t)
		before := time.Now()
		r := s.c.postJSON(t, "/dashboard/login", map[string]string{"email": a.Email, "password": a.Password})
		if expectStatus(t, r, http.StatusOK) {
			if r.Str("token") == "" {
				t.Errorf("%s: no token", r)
			}
			exp := checkTime(t, r, "expires_at", r.Body["expires_at"])
			if !exp.After(before) || exp.After(before.Add(time.Hour+5*time.Minute)) {
				t.Errorf("%s: expires_at %v is not within the coming hour", r, exp)
			}
		}
		r = s.c.postJSON(t, "/dashboard/login", map[string]string{"email": a.Email, "password": "wrong-password-123"})
		expectError(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
		r = s.c.postJSON(t, "/dashboard/login", map[string]string{"email": newEmail(), "password": testPassword})
		expectError(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
		if r.Str("token") != "" {
			t.Errorf("%s: failed login returned a token", r)
		}
	})

	t.Run("APIKeys", func(t *testing.T) {
		a := s.newAccount(t)
		other := s.newAccount(t)
		// Session-only endpoints refuse API keys and missing sessions.
		for _, opts := range [][]reqOpt{nil, {withBearer(a.APIKey)}, {withBearer("garbage")}} {
			expectError(t, s.c.do(t, http.MethodPost, "/dashboard/api-keys", nil, opts...), http.StatusUnauthorized, "UNAUTHORIZED")
			expectError(t, s.c.do(t, http.MethodGet, "/dashboard/api-keys", nil, opts...), http.StatusUnauthorized, "UNAUTHORIZED")
			expectError(t, s.c.do(t, http.MethodDelete, "/dashboard/api-keys/"+a.KeyID, nil, opts...), http.StatusUnauthorized, "UNAUTHORIZED")
		}
		key2, id2 := a.createKey(t)
		if key2 == a.APIKey || id2 == a.KeyID {
			t.Fatalf("second key equals the first")
		}
		list := func() map[string]map[string]any {
			r := s.c.do(t, http.MethodGet, "/dashboard/api-keys", nil, withBearer(a.Token))
			if !expectStatus(t, r, http.StatusOK) {
				return nil
			}
			if strings.Contains(string(r.Raw), a.APIKey) || strings.Contains(string(r.Raw), key2) {
				t.Errorf("%s: the key list shows a secret", r)
			}
			arr, ok := r.Body["api_keys"].([]any)
			if !ok {
				t.Errorf("%s: api_keys is not an array", r)
				return nil
			}
			out := map[string]map[string]any{}
			for _, v := range arr {
				k, _ := v.(map[string]any)
				id, _ := k["key_id"].(string)
				out[id] = k
				checkTime(t, r, "created_at", k["created_at"])
				if lu := k["last_used_at"]; lu != nil {
					checkTime(t, r, "last_used_at", lu)
				} else if _, present := k["last_used_at"]; !present {
					t.Errorf("%s: last_used_at missing (null when unused)", r)
				}
			}
			return out
		}
		keys := list()
		for _, k := range []struct{ id, secret string }{{a.KeyID, a.APIKey}, {id2, key2}} {
			entry, ok := keys[k.id]
			if !ok {
				t.Errorf("key %s not listed: %v", k.id, keys)
				continue
			}
			p, _ := entry["prefix"].(string)
			if p == "" || !strings.HasPrefix(k.secret, p) || len(p) >= len(k.secret)/2 {
				t.Errorf("key %s: prefix %q is not a short prefix of its secret", k.id, p)
			}
		}
		if keys[id2] != nil && keys[id2]["last_used_at"] != nil {
			t.Errorf("unused key has last_used_at %v", keys[id2]["last_used_at"])
		}
		// Using the key records last_used_at.
		expectStatus(t, s.c.do(t, http.MethodGet, "/v1/transcriptions", nil, withBearer(key2)), http.StatusOK)
		if keys = list(); keys[id2] == nil || keys[id2]["last_used_at"] == nil {
			t.Errorf("used key has no last_used_at: %v", keys[id2])
		}
		// The other account sees none of them and cannot revoke them.
		r := s.c.do(t, http.MethodGet, "/dashboard/api-keys", nil, withBearer(other.Token))
		if strings.Contains(string(r.Raw), a.KeyID) || strings.Contains(string(r.Raw), id2) {
			t.Errorf("%s: another account's keys are listed", r)
		}
		r = s.c.do(t, http.MethodDelete, "/dashboard/api-keys/"+id2, nil, withBearer(other.Token))
		if r.Status < 400 || r.Status >= 500 {
			t.Errorf("%s: revoking another account's key must be refused (4xx)", r)
		}
		expectStatus(t, s.c.do(t, http.MethodGet, "/v1/transcriptions", nil, withBearer(key2)), http.StatusOK)
		// Revoke: 401 at once, the other key keeps working.
		r = s.c.do(t, http.MethodDelete, "/dashboard/api-keys/"+id2, nil, withBearer(a.Token))
		if r.Status < 200 || r.Status > 299 {
			t.Errorf("%s: revoke want 2xx", r)
		}
		expectError(t, s.c.do(t, http.MethodGet, "/v1/transcriptions", nil, withBearer(key2)), http.StatusUnauthorized, "UNAUTHORIZED")
		expectError(t, s.c.postJSON(t, "/v1/summarize", map[string]string{"transcript_text": "hello"}, withBearer(key2)), http.StatusUnauthorized, "UNAUTHORIZED")
		expectStatus(t, s.c.do(t, http.MethodGet, "/v1/transcriptions", nil, withBearer(a.APIKey)), http.StatusOK)
		r = s.c.do(t, http.MethodDelete, "/dashboard/api-keys/"+newUUID(), nil, withBearer(a.Token))
		if r.Status < 400 || r.Status >= 500 {
			t.Errorf("%s: revoking an unknown key want 4xx", r)
		}
	})
}

// testAuth: every API-key route refuses missing/invalid keys and session tokens;
// the usage route refuses API keys.
func (s *suite) testAuth(t *testing.T) {
	a := s.newAccount(t)
	jobID := a.MustUpload(t, Upload{Filename: "auth.wav", Data: MakeWAV(0.5, 1, false)})
	if jobID == "" {
		t.FailNow()
	}
	s.mustSucceed(t, a, jobID)
	wav, ct := multipartBody(Upload{Filename: "x.wav", Data: MakeWAV(0.5, 1, false)})
	deriveBody := []byte(`{"transcript_text":"Agent: hello. User: my bill is wrong."}`)
	routes := []struct {
		method, path string
		body         []byte
		ct           string
	}{
		{http.MethodPost, "/v1/transcriptions", wav, ct},
		{http.MethodGet, "/v1/transcriptions", nil, ""},
		{http.MethodGet, "/v1/transcriptions?limit=5", nil, ""},
		{http.MethodGet, "/v1/transcriptions/" + jobID, nil, ""},
		{http.MethodDelete, "/v1/transcriptions/" + jobID, nil, ""},
		{http.MethodPost, "/v1/summarize", deriveBody, "application/json"},
		{http.MethodPost, "/v1/tag", deriveBody, "application/json"},
		// Service extensions behind the same API-key authentication.
		{http.MethodGet, "/v1/tags/taxonomy", nil, ""},
		{http.MethodPost, "/v1/transcriptions/uploads", nil, ""},
	}
	creds := []struct {
		name string
		opts []reqOpt
	}{
		{"none", nil},
		{"empty bearer", []reqOpt{withHeader("Authorization", "Bearer ")}},
		{"unknown key", []reqOpt{withBearer("cs_" + randHex(20))}},
		{"key without Bearer", []reqOpt{withHeader("Authorization", a.APIKey)}},
		{"basic scheme", []reqOpt{withHeader("Authorization", "Basic "+a.APIKey)}},
		{"truncated key", []reqOpt{withBearer(a.APIKey[:len(a.APIKey)-1])}},
		{"session token", []reqOpt{withBearer(a.Token)}},
	}
	for _, rt := range routes {
		for _, cr := range creds {
			opts := append([]reqOpt{}, cr.opts...)
			if rt.ct != "" {
				opts = append(opts, withContentType(rt.ct))
			}
			r := s.c.do(t, rt.method, rt.path, rt.body, opts...)
			if r.Status != http.StatusUnauthorized || r.ErrCode() != "UNAUTHORIZED" {
				t.Errorf("%s (%s): want 401 UNAUTHORIZED", r, cr.name)
			}
		}
	}
	// Nothing above had an effect: the job is still there and nothing new was created.
	expectStatus(t, a.Get(t, jobID), http.StatusOK)
	if r := a.List(t, nil); expectStatus(t, r, http.StatusOK) {
		if items, _ := r.Body["transcriptions"].([]any); len(items) != 1 {
			t.Errorf("%s: want exactly the one job; refused requests must not create jobs", r)
		}
	}

	expectStatus(t, s.c.do(t, http.MethodGet, "/v1/tags/taxonomy", nil, withBearer(a.APIKey)), http.StatusOK)

	// Usage: dashboard session only.
	for _, cr := range []struct {
		name string
		opts []reqOpt
	}{
		{"none", nil},
		{"api key", []reqOpt{withBearer(a.APIKey)}},
		{"garbage", []reqOpt{withBearer("garbage")}},
		{"tampered session", []reqOpt{withBearer(flipChar(a.Token, len(a.Token)/2))}},
		{"session without Bearer", []reqOpt{withHeader("Authorization", a.Token)}},
	} {
		r := s.c.do(t, http.MethodGet, "/v1/transcriptions/usage", nil, cr.opts...)
		if r.Status != http.StatusUnauthorized || r.ErrCode() != "UNAUTHORIZED" {
			t.Errorf("%s (%s): want 401 UNAUTHORIZED", r, cr.name)
		}
	}
	u := a.Usage(t)
	if !approx(u.Used, round2(WAVSeconds(0.5))) {
		t.Errorf("usage with session: used %v, want %v", u.Used, round2(0.5))
	}
}

// flipChar changes the character at i to a different one of the same class.
func flipChar(s string, i int) string {
	b := []byte(s)
	switch c := b[i]; {
	case c == 'A':
		b[i] = 'B'
	case c >= '0' && c <= '9':
		b[i] = '0' + (c-'0'+1)%10
	case c == '.' || c == '-' || c == '_':
		return flipChar(s, i+1)
	default:
		b[i] = 'A'
	}
	return string(b)
}
