#!/usr/bin/env bash
# bench-insights: accuracy of the built-in tagger on the labelled call splits
# (train testdata/insights, dev testdata/insights-dev, test testdata/insights-test (spent),
# test2 testdata/insights-test2 and test3 testdata/insights-test3 (the ones quoted), each reported separately), on the clean dialogue and after the speech engine
# (synthcall 8 kHz stereo audio -> embedded sphinx). Audio and transcripts are
# cached in .cache/bench-insights; delete it to start over.
# Extra arguments go to the Go program, e.g. `bash infra/bench/insights.sh -mode clean -v`,
# or `-speech-set testdata/insights-dev` to run speech on one split only.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CGO_ENABLED=1 # the sphinx engine is cgo
exec go run ./infra/bench/cmd/insights -set testdata/insights,testdata/insights-dev,testdata/insights-test,testdata/insights-test2,testdata/insights-test3 -cache .cache/bench-insights "$@"
