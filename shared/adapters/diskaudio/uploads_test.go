package diskaudio

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

func newUploads(t *testing.T, now func() time.Time) (*Uploads, *Store, *httptest.Server) {
	t.Helper()
	store, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	u := NewUploads(store, []byte("test-secret"), now)
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)
	u.SetBaseURL(srv.URL)
	return u, store, srv
}

func post(t *testing.T, url string, fields map[string]string, file []byte) (int, string) {
	t.Helper()
	status, body, err := apitest.PostPresigned(http.DefaultClient, url, fields, file)
	if err != nil {
		t.Fatal(err)
	}
	return status, body
}

func TestUploadStoresUnderTheSignedKey(t *testing.T) {
	u, store, srv := newUploads(t, nil)
	url, fields, err := u.SignUpload(context.Background(), "uploads/acct/u1", 100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if url != srv.URL+UploadPath {
		t.Fatalf("url %q", url)
	}
	data := []byte("RIFF....WAVE")
	if status, body := post(t, url, fields, data); status != http.StatusNoContent {
		t.Fatalf("upload: %d %s", status, body)
	}
	rc, err := store.OpenAudio(context.Background(), "uploads/acct/u1")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, data) {
		t.Fatalf("stored %q, want %q", got, data)
	}
}

func TestUploadRefusals(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	u, store, _ := newUploads(t, func() time.Time { return now })
	url, fields, err := u.SignUpload(context.Background(), "uploads/acct/u2", 10, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for kk, vv := range fields {
			m[kk] = vv
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for name, tc := range map[string]struct {
		fields map[string]string
		file   []byte
		status int
		code   string
	}{
		"other key":         {with("key", "uploads/other/u2"), []byte("abc"), http.StatusForbidden, "SIGNATURE_MISMATCH"},
		"raised limit":      {with("max_bytes", "999999"), []byte("abc"), http.StatusForbidden, "SIGNATURE_MISMATCH"},
		"later expiry":      {with("expires", "99999999999"), []byte("abc"), http.StatusForbidden, "SIGNATURE_MISMATCH"},
		"no signature":      {with("signature", ""), []byte("abc"), http.StatusForbidden, "SIGNATURE_MISMATCH"},
		"over signed limit": {fields, bytes.Repeat([]byte("x"), 11), http.StatusRequestEntityTooLarge, "FILE_TOO_LARGE"},
	} {
		t.Run(name, func(t *testing.T) {
			status, body := post(t, url, tc.fields, tc.file)
			if status != tc.status || !strings.Contains(body, `"code":"`+tc.code+`"`) {
				t.Fatalf("got %d %s, want %d %s", status, body, tc.status, tc.code)
			}
		})
	}
	now = now.Add(2 * time.Minute)
	if status, body := post(t, url, fields, []byte("abc")); status != http.StatusForbidden || !strings.Contains(body, "UPLOAD_EXPIRED") {
		t.Fatalf("after expiry: %d %s", status, body)
	}
	if _, err := store.OpenAudio(context.Background(), "uploads/acct/u2"); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Fatalf("a refused upload was stored: %v", err)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}

func TestRemoveStaleUploads(t *testing.T) {
	store, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if n, err := store.RemoveStaleUploads("uploads", time.Now()); err != nil || n != 0 {
		t.Fatalf("empty store: %d %v", n, err)
	}
	for _, k := range []string{"uploads/a/old", "uploads/b/new", "audio/a/job"} {
		if err := store.PutAudio(ctx, k, bytes.NewReader([]byte("x")), 1); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-48 * time.Hour)
	for _, k := range []string{"uploads/a/old", "audio/a/job"} {
		p, _ := store.path(k)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	n, err := store.RemoveStaleUploads("uploads", time.Now().Add(-24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v; want 1", n, err)
	}
	for k, want := range map[string]bool{"uploads/a/old": false, "uploads/b/new": true, "audio/a/job": true} {
		_, err := store.OpenAudio(ctx, k)
		if got := err == nil; got != want {
			t.Errorf("%s present=%v, want %v", k, got, want)
		}
	}
}

// TestBlackBoxSuiteKnowsTheStandInPaths: the black-box suite leaves the
// stand-ins' paths out of its OpenAPI validation (they are storage, not API).
func TestBlackBoxSuiteKnowsTheStandInPaths(t *testing.T) {
	for _, p := range []string{UploadPath, AudioPath} {
		if !slices.Contains(apitest.StorageStandInPaths, p) {
			t.Errorf("apitest.StorageStandInPaths %v lacks %s", apitest.StorageStandInPaths, p)
		}
	}
}

// Once the upload made a job (its consumed marker exists), the same signed
// form posted again stores nothing.
func TestUploadRefusedUnderAConsumedKey(t *testing.T) {
	u, store, _ := newUploads(t, nil)
	const key = "uploads/acct/u3"
	url, fields, err := u.SignUpload(context.Background(), key, 100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := post(t, url, fields, []byte("first")); status != http.StatusNoContent {
		t.Fatalf("upload: %d %s", status, body)
	}
	if err := store.PutMarker(context.Background(), callscribe.ConsumedUploadKey(key)); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteAudio(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	if status, body := post(t, url, fields, []byte("second")); status != http.StatusConflict || !strings.Contains(body, `"code":"UPLOAD_CONSUMED"`) {
		t.Fatalf("re-posted form: %d %s, want 409 UPLOAD_CONSUMED", status, body)
	}
	if _, err := store.OpenAudio(context.Background(), key); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Fatalf("the re-posted form stored an object: %v", err)
	}
}
