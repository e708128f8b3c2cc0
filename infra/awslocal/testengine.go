//go:build testengine

package main

import (
	"os"
	"time"

	"github.com/callscribe/callscribe/shared/app"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testengine"
)

// Test builds (go build -tags testengine) can select TRANSCRIBER=test, as in
// infra/local; TEST_ENGINE_DELAY slows it down.
func init() {
	app.RegisterTranscriber("test", func(cfg app.Config) (callscribe.Transcriber, func(), error) {
		delay, _ := time.ParseDuration(os.Getenv("TEST_ENGINE_DELAY"))
		return &testengine.Engine{Delay: delay, AgentChannel: cfg.AgentChannel}, nil, nil
	})
}
