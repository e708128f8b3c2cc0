package diskaudio

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestLinksExpireAndOnlyReadTheSignedKey(t *testing.T) {
	store, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("ID3 not really mp3 but bytes")
	if err := store.PutAudio(t.Context(), "audio/a/job.mp3", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	links := NewLinks(store, []byte("secret"), func() time.Time { return now })
	if _, err := links.AudioURL(t.Context(), "audio/a/job.mp3", time.Minute); err == nil {
		t.Fatal("a link was made before the base URL was known")
	}
	links.SetBaseURL("http://local.test")
	link, err := links.AudioURL(t.Context(), "audio/a/job.mp3", time.Minute)
	if err != nil || !strings.HasPrefix(link, "http://local.test"+AudioPath+"?") {
		t.Fatalf("link %q %v", link, err)
	}
	get := func(u string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		links.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		return rec
	}
	if rec := get(link); rec.Code != http.StatusOK || rec.Body.String() != string(data) || rec.Header().Get("Content-Type") != "audio/mpeg" {
		t.Fatalf("fresh link: %d %q %q", rec.Code, rec.Body, rec.Header().Get("Content-Type"))
	}
	if rec := get(strings.Replace(link, "job.mp3", "other.mp3", 1)); rec.Code != http.StatusForbidden {
		t.Fatalf("a changed key was served: %d", rec.Code)
	}
	now = now.Add(2 * time.Minute)
	if rec := get(link); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "LINK_EXPIRED") {
		t.Fatalf("expired link: %d %s", rec.Code, rec.Body)
	}
	rec := httptest.NewRecorder()
	links.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, link, nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", rec.Code)
	}
}
