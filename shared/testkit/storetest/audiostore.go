package storetest

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// RunAudioStoreTests runs the AudioStore contract against stores made by
// newStore (called once per subtest). Keys are slash-separated paths, as the
// service uses them ("audio/<account>/<job>.wav", "uploads/<account>/<id>").
//
// Contract decisions the suite pins down beyond the interface comments:
//   - PutAudio over an existing key replaces the object whole.
//   - A PutAudio whose reader ends before size fails and leaves no object
//     under the key (readers never see a partial file).
//   - OpenAudio and DeleteAudio of a key never stored are NOT_FOUND and nil.
//   - PutMarker succeeds once per key; later and concurrent calls are CONFLICT,
//     and a marker does not touch the object whose name it extends.
func RunAudioStoreTests(t *testing.T, newStore func(t *testing.T) callscribe.AudioStore) {
	tests := []struct {
		name string
		run  func(t *testing.T, s callscribe.AudioStore)
	}{
		{"PutOpenDelete/RoundTripsTheBytes", testAudioRoundTrip},
		{"PutOpenDelete/DeleteIsImmediateAndIdempotent", testAudioDelete},
		{"PutAudio/ReplacesAnExistingObject", testAudioReplace},
		{"PutAudio/ShortReaderStoresNothing", testAudioShortReader},
		{"PutAudio/EmptyObject", testAudioEmpty},
		{"OpenAudio/MissingIsNotFound", testAudioMissing},
		{"Keys/NeighboursAreSeparate", testAudioNeighbours},
		{"Concurrent/PutsOfDifferentKeys", testAudioConcurrent},
		{"PutMarker/OnlyOnce", testMarkerOnlyOnce},
		{"PutMarker/ConcurrentCallersOneWins", testMarkerConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
}

func put(t *testing.T, s callscribe.AudioStore, key string, data []byte) {
	t.Helper()
	if err := s.PutAudio(t.Context(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("PutAudio(%s): %v", key, err)
	}
}

func read(t *testing.T, s callscribe.AudioStore, key string) []byte {
	t.Helper()
	rc, err := s.OpenAudio(t.Context(), key)
	if err != nil {
		t.Fatalf("OpenAudio(%s): %v", key, err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	return got
}

func requireAbsent(t *testing.T, s callscribe.AudioStore, key string) {
	t.Helper()
	rc, err := s.OpenAudio(t.Context(), key)
	if err == nil {
		rc.Close()
		t.Fatalf("OpenAudio(%s) found an object, want NOT_FOUND", key)
	}
	requireCode(t, err, callscribe.CodeNotFound, "OpenAudio("+key+")")
}

// audioBytes is content no store could produce by accident: every byte value,
// more than one read buffer long.
func audioBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func testAudioRoundTrip(t *testing.T, s callscribe.AudioStore) {
	key := "audio/" + newID() + "/" + newID() + ".wav"
	data := audioBytes(200_000)
	put(t, s, key, data)
	if got := read(t, s, key); !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes back, want the %d stored", len(got), len(data))
	}
	// Reading does not consume: a second reader sees the same bytes.
	if got := read(t, s, key); !bytes.Equal(got, data) {
		t.Fatal("a second read differs")
	}
}

func testAudioDelete(t *testing.T, s callscribe.AudioStore) {
	key := "audio/" + newID() + "/job.mp3"
	put(t, s, key, []byte("ID3 some mp3 bytes"))
	requireNoError(t, s.DeleteAudio(t.Context(), key), "DeleteAudio")
	requireAbsent(t, s, key)
	requireNoError(t, s.DeleteAudio(t.Context(), key), "second DeleteAudio")
}

func testAudioReplace(t *testing.T, s callscribe.AudioStore) {
	key := "uploads/" + newID() + "/" + newID()
	put(t, s, key, audioBytes(5000))
	put(t, s, key, []byte("short"))
	if got := read(t, s, key); string(got) != "short" {
		t.Fatalf("after replacing: %d bytes, want the 5 of the second put", len(got))
	}
}

func testAudioShortReader(t *testing.T, s callscribe.AudioStore) {
	key := "audio/" + newID() + "/short.wav"
	err := s.PutAudio(t.Context(), key, bytes.NewReader([]byte("abc")), 10)
	if err == nil {
		t.Fatal("PutAudio accepted a reader 7 bytes shorter than size")
	}
	requireAbsent(t, s, key)
}

func testAudioEmpty(t *testing.T, s callscribe.AudioStore) {
	key := "audio/" + newID() + "/empty.wav"
	put(t, s, key, nil)
	if got := read(t, s, key); len(got) != 0 {
		t.Fatalf("empty object read back as %d bytes", len(got))
	}
}

func testAudioMissing(t *testing.T, s callscribe.AudioStore) {
	requireAbsent(t, s, "audio/"+newID()+"/never-stored.wav")
	requireNoError(t, s.DeleteAudio(t.Context(), "audio/"+newID()+"/never-stored.wav"), "DeleteAudio of a missing key")
}

func testAudioNeighbours(t *testing.T, s callscribe.AudioStore) {
	dir := "audio/" + newID()
	put(t, s, dir+"/a.wav", []byte("A"))
	put(t, s, dir+"/a.wav.bak", []byte("B"))
	put(t, s, dir+"/b/a.wav", []byte("C"))
	requireNoError(t, s.DeleteAudio(t.Context(), dir+"/a.wav"), "DeleteAudio")
	if string(read(t, s, dir+"/a.wav.bak")) != "B" || string(read(t, s, dir+"/b/a.wav")) != "C" {
		t.Fatal("deleting one key touched its neighbours")
	}
}

func testAudioConcurrent(t *testing.T, s callscribe.AudioStore) {
	dir := "audio/" + newID()
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data := bytes.Repeat([]byte{byte(i)}, 10_000+i)
			errs[i] = s.PutAudio(t.Context(), dir+"/"+string(rune('a'+i)), bytes.NewReader(data), int64(len(data)))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i := range 16 {
		got := read(t, s, dir+"/"+string(rune('a'+i)))
		if len(got) != 10_000+i || got[0] != byte(i) || got[len(got)-1] != byte(i) {
			t.Fatalf("object %d read back wrong (%d bytes)", i, len(got))
		}
	}
}

func testMarkerOnlyOnce(t *testing.T, s callscribe.AudioStore) {
	upload := "uploads/" + newID() + "/" + newID()
	put(t, s, upload, []byte("staged"))
	marker := callscribe.ConsumedUploadKey(upload)
	requireNoError(t, s.PutMarker(t.Context(), marker), "first PutMarker")
	requireCode(t, s.PutMarker(t.Context(), marker), callscribe.CodeConflict, "second PutMarker")
	// Removing the upload and staging it again leaves the marker in force.
	requireNoError(t, s.DeleteAudio(t.Context(), upload), "DeleteAudio")
	put(t, s, upload, []byte("staged again"))
	requireCode(t, s.PutMarker(t.Context(), marker), callscribe.CodeConflict, "PutMarker after re-staging")
	if got := read(t, s, upload); string(got) != "staged again" {
		t.Fatalf("the upload reads %q", got)
	}
}

func testMarkerConcurrent(t *testing.T, s callscribe.AudioStore) {
	marker := callscribe.ConsumedUploadKey("uploads/" + newID() + "/" + newID())
	const callers = 8
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.PutMarker(t.Context(), marker)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !callscribe.IsCode(err, callscribe.CodeConflict):
			t.Errorf("PutMarker: %v, want nil or CONFLICT", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d concurrent PutMarker calls succeeded, want exactly 1", won, callers)
	}
}
