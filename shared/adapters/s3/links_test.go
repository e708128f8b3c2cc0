package s3

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"
)

// A presigned audio link reads the object (with Range, as a player seeks) and
// stops working once the object is deleted.
func TestAudioURLStreamsRangesUntilDeleted(t *testing.T) {
	s := newStore(t)
	data := bytes.Repeat([]byte("0123456789"), 300)
	if err := s.PutAudio(t.Context(), "audio/acct/job.wav", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	link, err := s.AudioURL(t.Context(), "audio/acct/job.wav", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, link, nil)
	req.Header.Set("Range", "bytes=1000-1099")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, data[1000:1100]) {
		t.Fatalf("range read: %d, %d bytes", resp.StatusCode, len(got))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "audio/wav" {
		t.Fatalf("Content-Type %q, want the pinned audio/wav", ct)
	}
	if err := s.DeleteAudio(t.Context(), "audio/acct/job.wav"); err != nil {
		t.Fatal(err)
	}
	resp, err = http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted object still served: %d", resp.StatusCode)
	}
}
