package client_test

import (
	"slices"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
)

func TestLimitsAndHealth(t *testing.T) {
	c, _ := client.New(baseURL)
	if err := c.Health(t.Context()); err != nil {
		t.Fatal(err)
	}
	email := newEmail()
	if err := c.Signup(t.Context(), email, testPassword); err != nil {
		t.Fatal(err)
	}
	s, err := c.Login(t.Context(), email, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.With(client.WithSessionToken(s.Token)).Limits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if l.MaxAudioBytes != client.MaxFileBytes || l.DirectUploadMaxBytes <= 0 || l.MaxPageSize != 100 || !slices.Contains(l.AudioFormats, "wav") {
		t.Errorf("limits %+v", l)
	}
	// The create answers carry the type on every path.
	api := account(t)
	created, err := api.CreateTranscriptionFromFile(t.Context(), "call.wav", client.TranscriptionOptions{})
	if err != nil || created.Type != client.TypeTranscription {
		t.Errorf("created %+v, %v", created, err)
	}
}

func TestDailyUsageShowsTodaysUpload(t *testing.T) {
	c, _ := client.New(baseURL)
	email := newEmail()
	if err := c.Signup(t.Context(), email, testPassword); err != nil {
		t.Fatal(err)
	}
	s, err := c.Login(t.Context(), email, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	session := c.With(client.WithSessionToken(s.Token))
	key, err := session.CreateAPIKey(t.Context(), "tests")
	if err != nil {
		t.Fatal(err)
	}
	api := c.With(client.WithAPIKey(key.Secret))
	if _, err := api.CreateTranscriptionFromFile(t.Context(), writeWAV(t, "call.wav", 30, 1), client.TranscriptionOptions{Language: "en"}); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format("2006-01-02")
	u, err := session.DailyUsage(t.Context(), "")
	if err != nil || len(u.Months) != 2 || u.Months[1].UsedMinutes != 0.5 {
		t.Fatalf("daily usage %+v, %v; want 0.5 minutes this month", u, err)
	}
	for _, d := range u.Months[1].Days {
		if d.Date == today && (d.Minutes != 0.5 || d.Jobs != 1) {
			t.Fatalf("today %+v, want 0.5 minutes in 1 job", d)
		}
	}
	if len(u.TopLanguages) != 1 || u.TopLanguages[0].Language == nil || *u.TopLanguages[0].Language != "en" {
		t.Fatalf("top languages %+v, want en", u.TopLanguages)
	}
	if _, err := session.DailyUsage(t.Context(), "2026-1"); err == nil {
		t.Fatal("a malformed month was accepted")
	}
}
