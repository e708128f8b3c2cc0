// Package config reads the service's configuration from the environment and makes
// the JSON logger. Every entry point (the local process, each Lambda, the local
// AWS emulation) reads the same Config; each deployment is wired by a package of
// its own that links only what it runs: stack/embedded (the embedded stack),
// stack/awsstack (DynamoDB, S3, SQS) with the workers' engine tables
// awsstack/transcriptionengines and awsstack/derivedengines, and
// transport/lambdaapi (the Lambda entry points).
package config

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/callback"
)

// Config is every setting, read from environment variables (README lists them).
type Config struct {
	ListenAddr    string  // LISTEN_ADDR
	DataDir       string  // DATA_DIR
	Workers       int     // WORKERS
	QuotaMinutes  float64 // QUOTA_MINUTES
	RetentionDays int     // RETENTION_DAYS
	GatewayKey    string  // GATEWAY_KEY
	SessionSecret string  // SESSION_SECRET (generated into DATA_DIR when unset, locally)
	// Request budget per API key and, on dashboard routes, per client address:
	// RATE_LIMIT_RPS per second after a burst of RATE_LIMIT_BURST; 0 turns it off.
	RateLimitRPS   float64 // RATE_LIMIT_RPS
	RateLimitBurst int     // RATE_LIMIT_BURST
	// ShutdownGrace is how long, after SIGTERM, requests and jobs in flight
	// have to finish before jobs are handed back to the queue (SHUTDOWN_GRACE).
	ShutdownGrace time.Duration

	Transcriber  string // TRANSCRIBER: sphinx | openai (| aws-transcribe on AWS)
	Summarizer   string // SUMMARIZER: builtin | openai (| bedrock)
	Tagger       string // TAGGER: builtin | openai (| bedrock)
	AgentChannel int    // AGENT_CHANNEL
	// SpeakerAdaptation: the embedded engine adapts to each telephone
	// channel's speaker in a second pass (SPEAKER_ADAPTATION: on | off).
	SpeakerAdaptation bool
	// EchoRemoval: the embedded engine takes each leg's echo of the other
	// out of a two-channel call before decoding (ECHO_REMOVAL: on | off).
	EchoRemoval bool
	// NeuralSpeech: the embedded engine decodes each speech region with the
	// neural model too and combines the two recognisers' words (on), writes
	// the neural model's words alone (only), or uses PocketSphinx alone
	// (off) (NEURAL_SPEECH); NeuralSpeechModelDir is where the model is
	// (NEURAL_SPEECH_MODEL_DIR; by default the .cache/speech-models/moonshine-tiny
	// that make deps-speech-models fills, in this directory or the nearest
	// one above it that has one).
	NeuralSpeech         string
	NeuralSpeechModelDir string

	OpenAIBaseURL         string        // OPENAI_BASE_URL
	OpenAIAPIKey          string        // OPENAI_API_KEY
	OpenAITranscribeModel string        // OPENAI_TRANSCRIBE_MODEL
	OpenAIChatModel       string        // OPENAI_CHAT_MODEL
	OpenAITimeout         time.Duration // OPENAI_TIMEOUT

	CallbackAllowHosts  []string      // CALLBACK_ALLOW_HOSTS
	CallbackBackoffBase time.Duration // CALLBACK_BACKOFF_BASE
	CallbackTimeout     time.Duration // CALLBACK_TIMEOUT

	// RedactPII is redact_pii's default when a request leaves it out
	// (REDACT_PII: true | false, default false).
	RedactPII bool

	LogLevel slog.Level // LOG_LEVEL

	// BedrockModelID is the Converse model of SUMMARIZER/TAGGER=bedrock; empty
	// means bedrock.DefaultModelID (Claude 3 Haiku).
	BedrockModelID string // BEDROCK_MODEL_ID

	// AWS deployment (template.yaml sets these per function; see aws.go).
	JobsTable             string // JOBS_TABLE
	UsageTable            string // USAGE_TABLE
	AccountsTable         string // ACCOUNTS_TABLE
	APIKeysTable          string // API_KEYS_TABLE
	IdempotencyTable      string // IDEMPOTENCY_TABLE
	SigningSecretsTable   string // SIGNING_SECRETS_TABLE
	SearchTable           string // SEARCH_TABLE
	AudioBucket           string // AUDIO_BUCKET
	TranscriptionQueueURL string // TRANSCRIPTION_QUEUE_URL
	DerivedQueueURL       string // DERIVED_QUEUE_URL
	CallbackQueueURL      string // CALLBACK_QUEUE_URL
	// Endpoint overrides for the local AWS stack (the SDK's own variable names).
	// When any is set, OpenAWS uses static local credentials instead of the
	// default chain, so a local run can never touch a real account.
	DynamoDBEndpoint string // AWS_ENDPOINT_URL_DYNAMODB
	S3Endpoint       string // AWS_ENDPOINT_URL_S3
	SQSEndpoint      string // AWS_ENDPOINT_URL_SQS
	// TranscribeEndpoint is Amazon Transcribe's (the AWS emulation's local
	// stand-in, infra/awsemulator/transcribe).
	TranscribeEndpoint string // AWS_ENDPOINT_URL_TRANSCRIBE
	// TranscribeCheckAfter is how long the pipeline waits before asking Amazon
	// Transcribe again about a running job (awstranscribe.DefaultCheckAfter
	// when zero).
	TranscribeCheckAfter time.Duration // TRANSCRIBE_CHECK_AFTER
	AWSRegion            string        // AWS_REGION
	// The dashboard's sign-in on AWS: the Cognito app client (COGNITO_CLIENT_ID)
	// and, for the local AWS stack's stand-in, the cognito-idp endpoint
	// (COGNITO_ENDPOINT; default https://cognito-idp.<AWS_REGION>.amazonaws.com/).
	CognitoClientID string
	CognitoEndpoint string
}

// The request budget's defaults (README: Request limits).
const (
	DefaultRateLimitRPS   = 50
	DefaultRateLimitBurst = 100
)

// ConfigFromEnv reads the configuration, applying defaults and rejecting
// malformed values with a message naming the variable.
func ConfigFromEnv() (Config, error) {
	e := envReader{}
	c := Config{
		ListenAddr:            e.str("LISTEN_ADDR", "127.0.0.1:8080"),
		DataDir:               e.str("DATA_DIR", "./.data"),
		Workers:               e.integer("WORKERS", 2, 1, 64),
		QuotaMinutes:          e.number("QUOTA_MINUTES", 1000),
		RetentionDays:         e.integer("RETENTION_DAYS", 30, 0, 3650),
		GatewayKey:            os.Getenv("GATEWAY_KEY"),
		SessionSecret:         os.Getenv("SESSION_SECRET"),
		RateLimitRPS:          e.number("RATE_LIMIT_RPS", DefaultRateLimitRPS),
		RateLimitBurst:        e.integer("RATE_LIMIT_BURST", DefaultRateLimitBurst, 1, 1_000_000),
		ShutdownGrace:         e.duration("SHUTDOWN_GRACE", 20*time.Second),
		Transcriber:           e.str("TRANSCRIBER", "sphinx"),
		Summarizer:            e.str("SUMMARIZER", "builtin"),
		Tagger:                e.str("TAGGER", "builtin"),
		AgentChannel:          e.integer("AGENT_CHANNEL", 0, 0, 1),
		SpeakerAdaptation:     e.onOff("SPEAKER_ADAPTATION", true),
		EchoRemoval:           e.onOff("ECHO_REMOVAL", true),
		NeuralSpeech:          e.oneOf("NEURAL_SPEECH", "on", "on", "off", "only"),
		NeuralSpeechModelDir:  e.str("NEURAL_SPEECH_MODEL_DIR", defaultNeuralSpeechModelDir()),
		OpenAIBaseURL:         e.str("OPENAI_BASE_URL", "https://api.openai.com/v1"),
		OpenAIAPIKey:          os.Getenv("OPENAI_API_KEY"),
		OpenAITranscribeModel: e.str("OPENAI_TRANSCRIBE_MODEL", "whisper-1"),
		OpenAIChatModel:       e.str("OPENAI_CHAT_MODEL", "gpt-4o-mini"),
		OpenAITimeout:         e.duration("OPENAI_TIMEOUT", 120*time.Second),
		CallbackAllowHosts:    callback.ParseAllowHosts(os.Getenv("CALLBACK_ALLOW_HOSTS")),
		CallbackBackoffBase:   e.duration("CALLBACK_BACKOFF_BASE", callscribe.DefaultCallbackBackoffBase),
		CallbackTimeout:       e.duration("CALLBACK_TIMEOUT", callscribe.CallbackAttemptTimeout),
		RedactPII:             e.trueFalse("REDACT_PII", false),
		LogLevel:              e.level("LOG_LEVEL", slog.LevelInfo),
		BedrockModelID:        os.Getenv("BEDROCK_MODEL_ID"),
		JobsTable:             os.Getenv("JOBS_TABLE"),
		UsageTable:            os.Getenv("USAGE_TABLE"),
		AccountsTable:         os.Getenv("ACCOUNTS_TABLE"),
		APIKeysTable:          os.Getenv("API_KEYS_TABLE"),
		IdempotencyTable:      os.Getenv("IDEMPOTENCY_TABLE"),
		SigningSecretsTable:   os.Getenv("SIGNING_SECRETS_TABLE"),
		SearchTable:           os.Getenv("SEARCH_TABLE"),
		AudioBucket:           os.Getenv("AUDIO_BUCKET"),
		TranscriptionQueueURL: os.Getenv("TRANSCRIPTION_QUEUE_URL"),
		DerivedQueueURL:       os.Getenv("DERIVED_QUEUE_URL"),
		CallbackQueueURL:      os.Getenv("CALLBACK_QUEUE_URL"),
		DynamoDBEndpoint:      os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"),
		S3Endpoint:            os.Getenv("AWS_ENDPOINT_URL_S3"),
		SQSEndpoint:           os.Getenv("AWS_ENDPOINT_URL_SQS"),
		TranscribeEndpoint:    os.Getenv("AWS_ENDPOINT_URL_TRANSCRIBE"),
		TranscribeCheckAfter:  e.duration("TRANSCRIBE_CHECK_AFTER", 0),
		AWSRegion:             e.str("AWS_REGION", "us-east-1"),
		CognitoClientID:       os.Getenv("COGNITO_CLIENT_ID"),
		CognitoEndpoint:       os.Getenv("COGNITO_ENDPOINT"),
	}
	if c.RateLimitRPS < 0 {
		e.fail("RATE_LIMIT_RPS", "must not be negative (0 turns limiting off)")
	}
	if c.QuotaMinutes < 0 {
		e.fail("QUOTA_MINUTES", "must not be negative")
	}
	if err := callback.CheckAllowHosts(c.CallbackAllowHosts); err != nil {
		e.fail("CALLBACK_ALLOW_HOSTS", err.Error())
	}
	if len(e.problems) > 0 {
		return c, fmt.Errorf("configuration: %s", strings.Join(e.problems, "; "))
	}
	return c, nil
}

type envReader struct{ problems []string }

func (e *envReader) fail(name, why string) { e.problems = append(e.problems, name+" "+why) }

func (e *envReader) str(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

func (e *envReader) integer(name string, def, lo, hi int) int {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		e.fail(name, fmt.Sprintf("must be an integer from %d to %d, got %q", lo, hi, v))
		return def
	}
	return n
}

func (e *envReader) onOff(name string, def bool) bool {
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv(name))); v {
	case "":
		return def
	case "on":
		return true
	case "off":
		return false
	default:
		e.fail(name, fmt.Sprintf("must be on or off, got %q", v))
		return def
	}
}

// NeuralSpeechDir is the neural model's directory for the embedded engine,
// or "" when NEURAL_SPEECH is off.
func (c Config) NeuralSpeechDir() string {
	if c.NeuralSpeech == "off" {
		return ""
	}
	return c.NeuralSpeechModelDir
}

// oneOf reads a variable that takes one of a few words (lower-cased).
func (e *envReader) oneOf(name, def string, words ...string) string {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(name)))
	if v == "" {
		return def
	}
	if !slices.Contains(words, v) {
		e.fail(name, fmt.Sprintf("must be one of %s, got %q", strings.Join(words, ", "), v))
		return def
	}
	return v
}

// neuralSpeechModelPath is where make deps-speech-models installs the neural
// speech model, under the repository's root.
const neuralSpeechModelPath = ".cache/speech-models/moonshine-tiny"

// defaultNeuralSpeechModelDir is neuralSpeechModelPath under the working
// directory or the nearest directory above it that has it (make run starts
// in the repository's root, a package's tests in its folder), or the
// relative path itself when none has, so the error on loading names it.
func defaultNeuralSpeechModelDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return neuralSpeechModelPath
	}
	for {
		p := filepath.Join(dir, neuralSpeechModelPath)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return neuralSpeechModelPath
		}
		dir = parent
	}
}

// trueFalse reads a variable spelt as the API field it sets a default for.
func (e *envReader) trueFalse(name string, def bool) bool {
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv(name))); v {
	case "":
		return def
	case "true":
		return true
	case "false":
		return false
	default:
		e.fail(name, fmt.Sprintf("must be true or false, got %q", v))
		return def
	}
}

func (e *envReader) number(name string, def float64) float64 {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil {
		e.fail(name, fmt.Sprintf("must be a number, got %q", v))
		return def
	}
	return n
}

func (e *envReader) duration(name string, def time.Duration) time.Duration {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		e.fail(name, fmt.Sprintf("must be a Go duration such as 2s or 500ms, got %q", v))
		return def
	}
	return d
}

func (e *envReader) level(name string, def slog.Level) slog.Level {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		e.fail(name, fmt.Sprintf("must be debug, info, warn or error, got %q", v))
		return def
	}
	return l
}

// NewLogger returns the JSON logger every entry point uses.
func NewLogger(level slog.Level) *slog.Logger {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	// Packages that fall back to slog.Default() (an engine logging while it
	// loads) must log JSON too, not the standard library's text lines.
	slog.SetDefault(logger)
	return logger
}
