//go:build testengine

package main

import (
	"os"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
)

// addTestEngine lets test builds (go build -tags testengine) select
// TRANSCRIBER=test, as in infra/embeddedserver; TEST_ENGINE_DELAY slows it down.
func addTestEngine(t engines.Table[*awsstack.AWS]) {
	t.Transcribers["test"] = func(a *awsstack.AWS) (callscribe.Transcriber, func(), error) {
		delay, _ := time.ParseDuration(os.Getenv("TEST_ENGINE_DELAY"))
		return &testengine.Engine{Delay: delay, AgentChannel: a.Config.AgentChannel}, nil, nil
	}
}
