#!/usr/bin/env bash
# asr.sh: the embedded speech engine's benchmark (make bench-asr).
#
# Synthesises the evaluation calls in testdata/dialogues with flite (agent and
# user on separate channels, different voices) as 16 kHz WAV, 8 kHz WAV and
# 8 kHz MP3 into .cache/asr-bench (git-ignored; regenerated when a dialogue
# changes), then prints for each variant the WER per channel and overall, turn
# timing accuracy, the real-time factor per channel on one core (CPU time, one
# decoder, GOMAXPROCS=1) and peak RSS, and the WER on Debian's
# pocketsphinx-testdata LibriVox clips (real human speech, 16 kHz).
#
# The "dev" variant (not in the default list) is the dev set the narrowband
# feature map was chosen on: the first 24 of the 48 original labelled calls
# (testdata/insights/callNN.txt, two digits; not the three-digit calls),
# same voices, 8 kHz WAV. Choose engine changes on it, not on the call set.
# "dev-16k" is the same dev set synthesised at 16 kHz (the word-confidence
# map has a curve per band and is fitted on dev only).
# The "tagger-dev" variant decodes the tagger's dev split (testdata/insights-dev,
# 37 calls written by other hands than the original 48, in six styles) the same
# way: the domain LM reads calls 25-48 of the original set, written next to the
# dev set's 1-24, so language-model choices are checked here as well.
#
# Keyterms: each call's product, company and person names and domain
# terms are in testdata/keyterms/calls.json (dev set: dev.json). The 16k, 8k
# and dev variants score those terms without sending them; 16k-keyterms,
# 8k-keyterms and dev-keyterms send each call's terms with it (the engine
# boosts them for that call only). Tune the keyterm weight on dev only
# (ASR_ARGS="-keyterm-weight W"), never on the call set.
#
# Environment: ASR_VARIANTS (default "16k 8k 8k-mp3 librivox librivox-8k"; add "dev", "dev-16k", "tagger-dev"),
# ASR_WORDS_DIR (when set, each variant also writes its recognised words,
# scored against the reference, to DIR/VARIANT.jsonl for cmd/confidence), ASR_ARGS (extra
# asrbench flags, e.g. "-lm-weight -1" to measure without the domain LM, or
# "-no-narrowband-mllr" without the 8 kHz MLLR transforms, "-no-speaker-adapt" without
# the second, speaker-adapted pass over each 8 kHz channel),
# AGENT_VOICE (flite voice of the Agent channel, default slt; the User is rms),
# which gets a cache of its own.
set -euo pipefail
cd "$(dirname "$0")/../.."

AGENT_VOICE=${AGENT_VOICE:-slt}
CACHE=.cache/asr-bench
if [[ $AGENT_VOICE != slt ]]; then
	CACHE=$CACHE-$AGENT_VOICE
fi
VARIANTS=${ASR_VARIANTS:-"16k 8k 8k-mp3 librivox librivox-8k"}
LIBRIVOX=/usr/share/pocketsphinx/test/data/librivox
mkdir -p "$CACHE/bin" "$CACHE/calls16k" "$CACHE/calls8k" "$CACHE/dev8k" "$CACHE/dev16k" "$CACHE/tagger-dev8k"

go build -o "$CACHE/bin/synthcall" ./infra/bench/cmd/synthcall
go build -o "$CACHE/bin/asrbench" ./infra/bench/cmd/asrbench

# Synthesis is cheap next to recognition but still worth caching.
n=0
for f in testdata/dialogues/*.txt; do
	name=$(basename "$f" .txt)
	if [[ ! "$CACHE/calls8k/$name.json" -nt "$f" || ! -f "$CACHE/calls8k/$name.mp3" ]]; then
		"$CACHE/bin/synthcall" -in "$f" -out "$CACHE/calls8k/$name.wav" -rate 8000 -mp3 "$CACHE/calls8k/$name.mp3" -ref "$CACHE/calls8k/$name.json" -agent-voice "$AGENT_VOICE"
	fi
	if [[ ! "$CACHE/calls16k/$name.json" -nt "$f" ]]; then
		"$CACHE/bin/synthcall" -in "$f" -out "$CACHE/calls16k/$name.wav" -rate 16000 -ref "$CACHE/calls16k/$name.json" -agent-voice "$AGENT_VOICE"
	fi
	n=$((n + 1))
done
echo "asr bench: $n dialogues from testdata/dialogues (Agent voice $AGENT_VOICE, User voice rms), audio in $CACHE"

if [[ " $VARIANTS " == *" dev "* || " $VARIANTS " == *" dev-keyterms "* ]]; then
	for f in $(ls testdata/insights/call[0-9][0-9].txt | sort | head -n 24); do
		name=$(basename "$f" .txt)
		if [[ ! "$CACHE/dev8k/$name.json" -nt "$f" ]]; then
			"$CACHE/bin/synthcall" -in "$f" -out "$CACHE/dev8k/$name.wav" -rate 8000 -ref "$CACHE/dev8k/$name.json" -agent-voice "$AGENT_VOICE"
		fi
	done
fi

if [[ " $VARIANTS " == *" dev-16k "* ]]; then
	for f in $(ls testdata/insights/call[0-9][0-9].txt | sort | head -n 24); do
		name=$(basename "$f" .txt)
		if [[ ! "$CACHE/dev16k/$name.json" -nt "$f" ]]; then
			"$CACHE/bin/synthcall" -in "$f" -out "$CACHE/dev16k/$name.wav" -rate 16000 -ref "$CACHE/dev16k/$name.json" -agent-voice "$AGENT_VOICE"
		fi
	done
fi

if [[ " $VARIANTS " == *" tagger-dev "* ]]; then
	for f in testdata/insights-dev/call*.txt; do
		name=$(basename "$f" .txt)
		if [[ ! "$CACHE/tagger-dev8k/$name.json" -nt "$f" ]]; then
			"$CACHE/bin/synthcall" -in "$f" -out "$CACHE/tagger-dev8k/$name.wav" -rate 8000 -ref "$CACHE/tagger-dev8k/$name.json" -agent-voice "$AGENT_VOICE"
		fi
	done
fi

# Each variant runs on its own core (one decoder, GOMAXPROCS=1); with more
# variants than cores they queue. Results print in the order asked.
source infra/bench/pinned.sh
for v in $VARIANTS; do
	out="$CACHE/result-$v.txt"
	case $v in
	16k) args=(-calls "$CACHE/calls16k" -ext wav -label "16 kHz WAV" -keyterms testdata/keyterms/calls.json) ;;
	16k-keyterms) args=(-calls "$CACHE/calls16k" -ext wav -label "16 kHz WAV+keyterms" -keyterms testdata/keyterms/calls.json -use-keyterms) ;;
	8k) args=(-calls "$CACHE/calls8k" -ext wav -label "8 kHz WAV" -keyterms testdata/keyterms/calls.json) ;;
	8k-keyterms) args=(-calls "$CACHE/calls8k" -ext wav -label "8 kHz WAV+keyterms" -keyterms testdata/keyterms/calls.json -use-keyterms) ;;
	8k-mp3) args=(-calls "$CACHE/calls8k" -ext mp3 -label "8 kHz MP3") ;;
	dev) args=(-calls "$CACHE/dev8k" -ext wav -label "dev set 8 kHz WAV" -keyterms testdata/keyterms/dev.json) ;;
	dev-16k) args=(-calls "$CACHE/dev16k" -ext wav -label "dev set 16 kHz WAV" -keyterms testdata/keyterms/dev.json) ;;
	dev-keyterms) args=(-calls "$CACHE/dev8k" -ext wav -label "dev set+keyterms" -keyterms testdata/keyterms/dev.json -use-keyterms) ;;
	tagger-dev) args=(-calls "$CACHE/tagger-dev8k" -ext wav -label "tagger dev split 8 kHz WAV") ;;
	librivox)
		if [[ ! -d $LIBRIVOX ]]; then
			echo "librivox: $LIBRIVOX missing (install pocketsphinx-testdata)" >"$out"
			continue
		fi
		args=(-librivox "$LIBRIVOX")
		;;
	librivox-8k)
		# Real human speech as a telephone line carries it: the LibriVox clips
		# resampled to 8 kHz (sox's band-limiting resampler), as the call set's
		# narrowband audio is.
		if [[ ! -d $LIBRIVOX ]]; then
			echo "librivox-8k: $LIBRIVOX missing (install pocketsphinx-testdata)" >"$out"
			continue
		fi
		mkdir -p "$CACHE/librivox8k"
		cp "$LIBRIVOX/transcription" "$LIBRIVOX/fileids" "$CACHE/librivox8k/"
		for w in "$LIBRIVOX"/*.wav; do
			[[ -f "$CACHE/librivox8k/$(basename "$w")" ]] || sox "$w" -r 8000 "$CACHE/librivox8k/$(basename "$w")"
		done
		args=(-librivox "$CACHE/librivox8k" -label "librivox 8kHz")
		;;
	*) echo "unknown variant $v" >&2; exit 2 ;;
	esac
	if [[ -n ${ASR_WORDS_DIR:-} ]]; then
		mkdir -p "$ASR_WORDS_DIR"
		args+=(-words-out "$ASR_WORDS_DIR/$v.jsonl")
	fi
	# shellcheck disable=SC2086
	run_pinned "$out" "$CACHE/bin/asrbench" "${args[@]}" ${ASR_ARGS:-}
done
wait_pinned
for v in $VARIANTS; do
	cat "$CACHE/result-$v.txt"
done
