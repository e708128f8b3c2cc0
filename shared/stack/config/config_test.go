package config

import (
	"strings"
	"testing"
)

// SPEAKER_ADAPTATION and ECHO_REMOVAL are on unless switched off, and
// anything but on or off is a configuration error that names the variable.
func TestOnOffSettings(t *testing.T) {
	for name, get := range map[string]func(Config) bool{
		"SPEAKER_ADAPTATION": func(c Config) bool { return c.SpeakerAdaptation },
		"ECHO_REMOVAL":       func(c Config) bool { return c.EchoRemoval },
	} {
		for _, c := range []struct {
			value string
			want  bool
		}{{"", true}, {"on", true}, {"OFF", false}, {" off ", false}} {
			t.Setenv(name, c.value)
			cfg, err := ConfigFromEnv()
			if err != nil {
				t.Fatalf("%s=%q: %v", name, c.value, err)
			}
			if get(cfg) != c.want {
				t.Errorf("%s=%q: %v, want %v", name, c.value, get(cfg), c.want)
			}
		}
		t.Setenv(name, "yes")
		if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), name+" must be on or off") {
			t.Errorf("%s=yes: error %v", name, err)
		}
		t.Setenv(name, "")
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
