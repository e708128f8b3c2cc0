package config

import (
	"path/filepath"
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

// NEURAL_SPEECH is on unless set to off or only; the model's directory is
// the one make deps-speech-models fills, found from a package's folder too,
// unless NEURAL_SPEECH_MODEL_DIR names another; off gives the engine none.
func TestNeuralSpeechSettings(t *testing.T) {
	for _, c := range []struct{ value, want, dir string }{
		{"", "on", "x"}, {"ONLY", "only", "x"}, {" off ", "off", ""},
	} {
		t.Setenv("NEURAL_SPEECH", c.value)
		t.Setenv("NEURAL_SPEECH_MODEL_DIR", "x")
		cfg, err := ConfigFromEnv()
		if err != nil {
			t.Fatalf("%q: %v", c.value, err)
		}
		if cfg.NeuralSpeech != c.want || cfg.NeuralSpeechDir() != c.dir {
			t.Errorf("%q: NeuralSpeech %q, dir %q; want %q, %q", c.value, cfg.NeuralSpeech, cfg.NeuralSpeechDir(), c.want, c.dir)
		}
	}
	t.Setenv("NEURAL_SPEECH", "yes")
	if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "NEURAL_SPEECH must be one of on, off, only") {
		t.Errorf("NEURAL_SPEECH=yes: error %v", err)
	}
	t.Setenv("NEURAL_SPEECH", "")
	t.Setenv("NEURAL_SPEECH_MODEL_DIR", "")
	cfg, err := ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	// The tests run in shared/stack/config; the repository's root is three
	// folders up, and make deps-speech-models has filled it.
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, neuralSpeechModelPath); cfg.NeuralSpeechModelDir != want {
		t.Errorf("default model directory %q, want %q", cfg.NeuralSpeechModelDir, want)
	}
}
