package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigFileRoundTripAndModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nested", "callscribe", "config.json")
	want := fileConfig{BaseURL: "http://x:1", Email: "a@b.c", SessionToken: "tok", SessionExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := saveConfig(path, want); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config file mode %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("config dir mode %v, want 0700", di.Mode().Perm())
	}
	got, err := loadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("loaded %+v, want %+v", got, want)
	}
	// Overwriting keeps the mode (the file is replaced atomically).
	want.SessionToken = "tok2"
	if err := saveConfig(path, want); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("rewritten config file mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("config dir holds %d entries, want only config.json (no temp files left)", len(entries))
	}
}

func TestLoadConfigMissingAndInvalid(t *testing.T) {
	dir := t.TempDir()
	c, err := loadConfig(filepath.Join(dir, "none.json"))
	if err != nil || c != (fileConfig{}) {
		t.Errorf("missing file: %+v, %v; want empty config, no error", c, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{"), 0o600)
	if _, err := loadConfig(bad); err == nil {
		t.Error("invalid JSON config: no error")
	}
}

func TestConfigPathPrecedence(t *testing.T) {
	if p, _ := configPath("/flag.json", envOf(map[string]string{envConfig: "/env.json"})); p != "/flag.json" {
		t.Errorf("flag should win: %s", p)
	}
	if p, _ := configPath("", envOf(map[string]string{envConfig: "/env.json"})); p != "/env.json" {
		t.Errorf("env should win over default: %s", p)
	}
	if p, _ := configPath("", envOf(map[string]string{"XDG_CONFIG_HOME": "/xdg"})); p != "/xdg/callscribe/config.json" {
		t.Errorf("default path: %s", p)
	}
}

func TestResolvePrecedence(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	if err := saveConfig(path, fileConfig{BaseURL: "http://file:1/", APIKey: "file-key", SessionToken: "file-session", GatewayKey: "file-gw"}); err != nil {
		t.Fatal(err)
	}

	// File only.
	s, err := resolve(&Globals{Config: path}, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if s.BaseURL != "http://file:1" || s.APIKey != "file-key" || s.SessionToken != "file-session" || s.GatewayKey != "file-gw" {
		t.Errorf("file settings: %+v", s)
	}

	// Environment over file; the file's credentials are kept for its own URL.
	s, _ = resolve(&Globals{Config: path}, envOf(map[string]string{envAPIKey: "env-key", envGatewayKey: "env-gw", envBaseURL: "http://file:1"}))
	if s.APIKey != "env-key" || s.GatewayKey != "env-gw" || s.SessionToken != "file-session" {
		t.Errorf("env settings: %+v", s)
	}

	// Flags over environment.
	s, _ = resolve(&Globals{Config: path, APIKey: "flag-key", BaseURL: "http://file:1"}, envOf(map[string]string{envAPIKey: "env-key"}))
	if s.APIKey != "flag-key" {
		t.Errorf("flag settings: %+v", s)
	}

	// Another service: the file's credentials are not sent there.
	s, _ = resolve(&Globals{Config: path}, envOf(map[string]string{envBaseURL: "http://other:2"}))
	if s.BaseURL != "http://other:2" || s.APIKey != "" || s.SessionToken != "" || s.GatewayKey != "" {
		t.Errorf("credentials of another service leaked: %+v", s)
	}

	// Nothing anywhere: the default URL.
	s, _ = resolve(&Globals{Config: filepath.Join(dir, "none.json")}, envOf(nil))
	if s.BaseURL != DefaultBaseURL || s.APIKey != "" {
		t.Errorf("defaults: %+v", s)
	}
}
