package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

// TestRecordedReadsWAVAndG722UnderADirectory lays out recordings as Debian
// packages them (in subdirectories, WAV or G.722, some too short to fit on)
// and checks which become readings, and that each has its two sides.
func TestRecordedReadsWAVAndG722UnderADirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tone := make([]int16, 8000) // 0.5 s at 16 kHz
	for i := range tone {
		tone[i] = int16(1000 * (i % 32))
	}
	g722, err := os.ReadFile("/usr/share/asterisk/sounds/en_US_f_Allison/vm-goodbye.g722")
	if err != nil {
		t.Fatal(err)
	}
	write("a.wav", decode.EncodeWAV(16000, tone))
	write("digits/b.g722", g722)
	write("digits/short.wav", decode.EncodeWAV(16000, tone[:1600])) // 0.1 s: left out
	write("notes.txt", []byte("not audio"))

	tr := &trainer{cache: t.TempDir()}
	readings, err := tr.recorded([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(readings) != 2 {
		t.Fatalf("%d readings, want a.wav and digits/b.g722", len(readings))
	}
	for i, want := range []int{len(tone), 2 * len(g722)} {
		wide, narrow, err := readings[i].load()
		if err != nil {
			t.Fatal(err)
		}
		if len(wide) != want || abs(len(narrow)-want/2) > 8 {
			t.Errorf("reading %d: %d samples wide, %d narrow; want %d and about %d", i, len(wide), len(narrow), want, want/2)
		}
	}
	if _, err := tr.recorded([]string{t.TempDir()}); err == nil {
		t.Error("a directory without recordings gave no error")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
