//go:build testengine

package main

import (
	"os"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
)

// addTestEngine lets test builds (go build -tags testengine) select
// TRANSCRIBER=test; TEST_ENGINE_DELAY slows it down for crash tests. Only test
// builds have it, so `make run` can never use it.
func addTestEngine(t engines.Table[config.Config]) {
	t.Transcribers["test"] = func(cfg config.Config) (callscribe.Transcriber, func(), error) {
		delay, _ := time.ParseDuration(os.Getenv("TEST_ENGINE_DELAY"))
		return &testengine.Engine{Delay: delay, AgentChannel: cfg.AgentChannel}, nil, nil
	}
}
