// Package lambdaenv opens what every Lambda function runs on: the
// configuration from the environment and the AWS adapters wired once per
// execution environment. The API functions (package lambdaapi) and the workers
// (package lambdaapi/workers) both start here; it imports neither transport.
package lambdaenv

import (
	"context"
	"os"

	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/config"
)

// Setup is the start of every function's main: read the configuration and
// wire the AWS adapters once per execution environment (reused across
// invocations). function is the function's name, attached to every log line.
// It exits the process on failure, as a Lambda init must.
func Setup(function string) *awsstack.AWS {
	cfg, err := config.ConfigFromEnv()
	logger := config.NewLogger(cfg.LogLevel).With("function", function)
	if err != nil {
		logger.Error("invalid configuration", "err", err)
		os.Exit(2)
	}
	backend, err := awsstack.Open(context.Background(), cfg, logger)
	if err != nil {
		logger.Error("wiring the AWS adapters failed", "err", err)
		os.Exit(1)
	}
	return backend
}
