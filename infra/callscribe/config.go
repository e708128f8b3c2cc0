package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultBaseURL is the local stack's address (`make run`).
const DefaultBaseURL = "http://127.0.0.1:8080"

// Environment variables the CLI reads. Flags win over them; they win over the
// config file.
const (
	envBaseURL    = "CALLSCRIBE_BASE_URL"
	envAPIKey     = "CALLSCRIBE_API_KEY"
	envGatewayKey = "CALLSCRIBE_GATEWAY_KEY"
	envSession    = "CALLSCRIBE_SESSION_TOKEN"
	envConfig     = "CALLSCRIBE_CONFIG"
)

// fileConfig is the config file `callscribe login` writes: JSON, mode 0600 in
// a 0700 directory, by default os.UserConfigDir()/callscribe/config.json.
type fileConfig struct {
	BaseURL          string    `json:"base_url,omitempty"`
	Email            string    `json:"email,omitempty"`
	SessionToken     string    `json:"session_token,omitempty"`
	SessionExpiresAt time.Time `json:"session_expires_at,omitzero"`
	APIKey           string    `json:"api_key,omitempty"`
	GatewayKey       string    `json:"gateway_key,omitempty"`
}

// configPath is --config, else $CALLSCRIBE_CONFIG, else the user config dir's
// callscribe/config.json.
func configPath(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if p := getenv(envConfig); p != "" {
		return p, nil
	}
	dir, err := userConfigDir(getenv)
	if err != nil {
		return "", fmt.Errorf("finding the user config directory (set %s or pass --config): %w", envConfig, err)
	}
	return filepath.Join(dir, "callscribe", "config.json"), nil
}

// userConfigDir is os.UserConfigDir, reading the environment through getenv so
// tests can point it elsewhere (XDG_CONFIG_HOME, HOME on Unix).
func userConfigDir(getenv func(string) string) (string, error) {
	if v := getenv("XDG_CONFIG_HOME"); v != "" && filepath.IsAbs(v) {
		return v, nil
	}
	return os.UserConfigDir()
}

// loadConfig reads the config file; a missing file is an empty config.
func loadConfig(path string) (fileConfig, error) {
	var c fileConfig
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("reading the config file: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("the config file %s is not valid JSON: %v", path, err)
	}
	return c, nil
}

// saveConfig writes c to path atomically, the file 0600 and a created
// directory 0700: it holds credentials.
func saveConfig(path string, c fileConfig) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the config directory: %w", err)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".config-*.json")
	if err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the config file: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the config file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	return nil
}

// settings are the resolved connection settings of one run.
type settings struct {
	BaseURL      string
	APIKey       string
	GatewayKey   string
	SessionToken string
	ConfigPath   string
	File         fileConfig
}

// resolve applies flags > environment > config file > defaults.
func resolve(g *Globals, getenv func(string) string) (*settings, error) {
	path, err := configPath(g.Config, getenv)
	if err != nil {
		return nil, err
	}
	file, err := loadConfig(path)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(first(g.BaseURL, getenv(envBaseURL), file.BaseURL, DefaultBaseURL), "/")
	// The file's credentials belong to the service it was written for: a
	// session or key of one deployment is never sent to another.
	stored := fileConfig{}
	if file.BaseURL == "" || strings.TrimRight(file.BaseURL, "/") == base {
		stored = file
	}
	s := &settings{
		BaseURL:      base,
		APIKey:       first(g.APIKey, getenv(envAPIKey), stored.APIKey),
		GatewayKey:   first(g.GatewayKey, getenv(envGatewayKey), stored.GatewayKey),
		SessionToken: first(getenv(envSession), stored.SessionToken),
		ConfigPath:   path,
		File:         file,
	}
	return s, nil
}

// first is the first non-blank value.
func first(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
