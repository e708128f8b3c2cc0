package config

import (
	"strings"
	"testing"
)

// SPEAKER_ADAPTATION is on unless switched off, and anything but on or off
// is a configuration error that names the variable.
func TestSpeakerAdaptationSetting(t *testing.T) {
	for _, c := range []struct {
		value string
		want  bool
	}{{"", true}, {"on", true}, {"OFF", false}, {" off ", false}} {
		t.Setenv("SPEAKER_ADAPTATION", c.value)
		cfg, err := ConfigFromEnv()
		if err != nil {
			t.Fatalf("%q: %v", c.value, err)
		}
		if cfg.SpeakerAdaptation != c.want {
			t.Errorf("%q: SpeakerAdaptation = %v, want %v", c.value, cfg.SpeakerAdaptation, c.want)
		}
	}
	t.Setenv("SPEAKER_ADAPTATION", "yes")
	if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "SPEAKER_ADAPTATION must be on or off") {
		t.Errorf("SPEAKER_ADAPTATION=yes: error %v", err)
	}
}

// REDACT_PII is false unless set, and is spelt like the redact_pii field.
func TestRedactPIISetting(t *testing.T) {
	for _, c := range []struct {
		value string
		want  bool
	}{{"", false}, {"true", true}, {" TRUE ", true}, {"false", false}} {
		t.Setenv("REDACT_PII", c.value)
		cfg, err := ConfigFromEnv()
		if err != nil {
			t.Fatalf("%q: %v", c.value, err)
		}
		if cfg.RedactPII != c.want {
			t.Errorf("%q: RedactPII = %v, want %v", c.value, cfg.RedactPII, c.want)
		}
	}
	t.Setenv("REDACT_PII", "on")
	if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "REDACT_PII must be true or false") {
		t.Errorf("REDACT_PII=on: error %v", err)
	}
}
