package client

import (
	"os"
	"strings"
)

// The environment variables NewFromEnv reads, the same the callscribe CLI reads.
const (
	EnvBaseURL    = "CALLSCRIBE_BASE_URL"
	EnvAPIKey     = "CALLSCRIBE_API_KEY"
	EnvGatewayKey = "CALLSCRIBE_GATEWAY_KEY"
)

// DefaultBaseURL is the local stack's address (`make run`), used by
// NewFromEnv when CALLSCRIBE_BASE_URL is not set.
const DefaultBaseURL = "http://127.0.0.1:8080"

// NewFromEnv returns a client configured as the callscribe CLI is from its
// environment: the service at CALLSCRIBE_BASE_URL (default DefaultBaseURL),
// the API key CALLSCRIBE_API_KEY and the gateway key CALLSCRIBE_GATEWAY_KEY,
// each when set (surrounding blanks are ignored). opts are applied after
// them, so an explicit option wins over the environment.
func NewFromEnv(opts ...Option) (*Client, error) {
	return newFromGetenv(os.Getenv, opts...)
}

func newFromGetenv(getenv func(string) string, opts ...Option) (*Client, error) {
	base := strings.TrimSpace(getenv(EnvBaseURL))
	if base == "" {
		base = DefaultBaseURL
	}
	var envOpts []Option
	if key := strings.TrimSpace(getenv(EnvAPIKey)); key != "" {
		envOpts = append(envOpts, WithAPIKey(key))
	}
	if key := strings.TrimSpace(getenv(EnvGatewayKey)); key != "" {
		envOpts = append(envOpts, WithGatewayKey(key))
	}
	return New(base, append(envOpts, opts...)...)
}
