package client_test

import (
	"slices"
	"testing"

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
