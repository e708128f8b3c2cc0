#!/usr/bin/env bash
# asr-conditions.sh: the speech engine's word error rate by condition: other
# voices than the ones the project tunes with, and each through a simulated
# telephone line (make bench-asr runs the test split; make bench-asr-dev the
# dev split).
#
# A condition is a voice set and a line:
#   voice sets  tuned    flite slt (Agent) + rms (User): the voices the bench
#                        has always used
#               flite    flite awb + kal16 (natural-style voices, not tuned on)
#               espeak   espeak-ng formant voices; dev: en-us+f5 + en-us,
#                        test: en-us+steph + en-us+m7
#               librivox the pocketsphinx-testdata LibriVox clips (real read
#                        speech, 16 kHz, resampled to 8 kHz)
#               prompts  the Asterisk PBX's English prompts (asterisk-core-sounds-en-wav:
#                        one real woman's voice recorded for phones, 8 kHz), laid
#                        into two-leg calls by infra/bench/cmd/promptset
#   lines       infra/bench/internal/telephone (go run ./infra/bench/cmd/linesim -list):
#               clean, band, mulaw, alaw, gsm, line (band + mu-law + pink
#               noise 35 dB below the speech), noise30/20/10, quiet, clipped,
#               alaw-noise20, gsm-noise20, echo and echo15 (the line, with each
#               leg's speech leaking into the other 20 dB down and 40 ms late,
#               or 15 dB down and 24 ms late)
#
# Splits. dev: calls 1-12 of the labelled set (testdata/insights/callNN.txt,
# the dev calls the engine's other choices were made on). test: the 22
# evaluation dialogues (testdata/dialogues) under other lines and voices;
# engine changes are chosen on dev and the test split is read once after a
# choice. Real speech: the five LibriVox clips are read on both splits (the
# same speaker and text, so their rows are not held out), dev through mu-law,
# test clean and through "line"; the prompts, a voice engine changes may be
# chosen on, only on dev, so that the reader the test split reads is one no
# choice has seen.
#
# Environment: ASR_SPLIT (dev|test, default test), ASR_CONDITIONS (a subset of
# the split's conditions, e.g. "tuned/line espeak/clean"), ASR_ARGS (extra
# asrbench flags, as for asr.sh), ASR_TAG (a name for this run's results, so
# two engines' runs can be kept side by side), ASR_PREPARE_ONLY=1 (synthesise
# and pass through the lines, decode nothing).
#
# Audio is cached in .cache/asr-conditions (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

SPLIT=${ASR_SPLIT:-test}
CACHE=.cache/asr-conditions
LIBRIVOX=/usr/share/pocketsphinx/test/data/librivox
PROMPTS=/usr/share/asterisk/sounds/en_US_f_Allison
case $SPLIT in
dev)
	DIALOGUES=$(ls testdata/insights/call[0-9][0-9].txt | sort | head -n 12)
	ESPEAK_AGENT=espeak:en-us+f5 ESPEAK_USER=espeak:en-us
	DEFAULT="tuned/clean tuned/line tuned/mulaw tuned/gsm tuned/noise20 tuned/noise10 tuned/quiet tuned/clipped tuned/echo flite/clean espeak/clean espeak/line librivox/mulaw prompts/clean prompts/line"
	;;
test)
	DIALOGUES=$(ls testdata/dialogues/*.txt | sort)
	ESPEAK_AGENT=espeak:en-us+steph ESPEAK_USER=espeak:en-us+m7
	DEFAULT="tuned/clean tuned/line tuned/alaw tuned/gsm-noise20 tuned/noise10 tuned/clipped tuned/echo15 flite/clean flite/line espeak/clean espeak/line librivox/clean librivox/line"
	;;
*)
	echo "ASR_SPLIT must be dev or test" >&2
	exit 2
	;;
esac
CONDITIONS=${ASR_CONDITIONS:-$DEFAULT}
TAG=${ASR_TAG:-latest}
OUT=$CACHE/$SPLIT/results-$TAG
mkdir -p "$CACHE/bin" "$OUT"

go build -o "$CACHE/bin/synthcall" ./infra/bench/cmd/synthcall
go build -o "$CACHE/bin/linesim" ./infra/bench/cmd/linesim
go build -o "$CACHE/bin/asrbench" ./infra/bench/cmd/asrbench
go build -o "$CACHE/bin/promptset" ./infra/bench/cmd/promptset

voices() {
	case $1 in
	tuned) echo "slt rms" ;;
	flite) echo "awb kal16" ;;
	espeak) echo "$ESPEAK_AGENT $ESPEAK_USER" ;;
	*) return 1 ;;
	esac
}

# prepare SET LINE: the calls of a condition, synthesised once per voice set
# at 8 kHz, then passed through the line; prints the directory.
prepare() {
	local set=$1 line=$2 base dir
	if [[ $set == prompts ]]; then
		base=$CACHE/prompts/base
		dir=$CACHE/prompts/$line
		[[ -f $base/prompts01.json ]] || "$CACHE/bin/promptset" -sounds "$PROMPTS" -out "$base" >&2
		mkdir -p "$dir"
		local w name
		for w in "$base"/*.wav; do
			name=$(basename "$w" .wav)
			if [[ ! $dir/$name.wav -nt $w ]]; then
				"$CACHE/bin/linesim" -condition "$line" -in "$w" -out "$dir/$name.wav"
				cp "$base/$name.json" "$dir/$name.json"
			fi
		done
		echo "$dir"
		return
	fi
	if [[ $set == librivox ]]; then
		base=$LIBRIVOX
		dir=$CACHE/librivox/$line
		mkdir -p "$dir"
		cp "$base/transcription" "$base/fileids" "$dir/"
		for w in "$base"/*.wav; do
			[[ -f $dir/$(basename "$w") ]] || "$CACHE/bin/linesim" -condition "$line" -in "$w" -out "$dir/$(basename "$w")"
		done
		echo "$dir"
		return
	fi
	read -r agent user < <(voices "$set")
	base=$CACHE/$SPLIT/$set/base
	dir=$CACHE/$SPLIT/$set/$line
	mkdir -p "$base" "$dir"
	for f in $DIALOGUES; do
		local name
		name=$(basename "$f" .txt)
		if [[ ! $base/$name.json -nt $f ]]; then
			"$CACHE/bin/synthcall" -in "$f" -out "$base/$name.wav" -rate 8000 -ref "$base/$name.json" -agent-voice "$agent" -user-voice "$user" >&2
		fi
		if [[ ! $dir/$name.wav -nt $base/$name.wav ]]; then
			"$CACHE/bin/linesim" -condition "$line" -in "$base/$name.wav" -out "$dir/$name.wav"
			cp "$base/$name.json" "$dir/$name.json"
		fi
	done
	echo "$dir"
}

source infra/bench/pinned.sh
for c in $CONDITIONS; do
	set=${c%%/*} line=${c#*/}
	if [[ $set == librivox && ! -d $LIBRIVOX ]]; then
		echo "$c: $LIBRIVOX missing (install pocketsphinx-testdata)" >"$OUT/${set}_$line.txt"
		continue
	fi
	if [[ $set == prompts && ! -d $PROMPTS ]]; then
		echo "$c: $PROMPTS missing (install asterisk-core-sounds-en-wav)" >"$OUT/${set}_$line.txt"
		continue
	fi
	dir=$(prepare "$set" "$line")
	if [[ -n ${ASR_PREPARE_ONLY:-} ]]; then
		echo "$c: prepared in $dir"
		continue
	fi
	if [[ $set == librivox ]]; then
		args=(-librivox "$dir" -label "$c")
	else
		args=(-calls "$dir" -ext wav -label "$c")
	fi
	# shellcheck disable=SC2086
	run_pinned "$OUT/${set}_$line.txt" "$CACHE/bin/asrbench" "${args[@]}" ${ASR_ARGS:-}
done
wait_pinned
[[ -z ${ASR_PREPARE_ONLY:-} ]] || exit 0

echo "asr bench by condition: split $SPLIT, results in $OUT${ASR_ARGS:+ (asrbench $ASR_ARGS)}"
printf '| %-22s | %-9s | %-9s | %-9s | %-5s |\n' Condition "WER Agent" "WER User" "WER" RTF
printf '|%s|%s|%s|%s|%s|\n' "------------------------" "-----------" "-----------" "-----------" "-------"
for c in $CONDITIONS; do
	set=${c%%/*} line=${c#*/}
	f=$OUT/${set}_$line.txt
	agent=$(grep -oE 'agent\(ch0\)= *[0-9.]+%' "$f" | head -1 | sed 's/.*= *//' || true)
	user=$(grep -oE 'user\(ch1\)= *[0-9.]+%' "$f" | head -1 | sed 's/.*= *//' || true)
	all=$(grep -oE '(overall|clips=[0-9]+  WER)= *[0-9.]+%' "$f" | head -1 | sed 's/.*= *//' || true)
	rtf=$(grep -oE 'RTF( per channel)?=[0-9.]*' "$f" | head -1 | cut -d= -f2 || true)
	printf '| %-22s | %-9s | %-9s | %-9s | %-5s |\n' "$c" "${agent:--}" "${user:--}" "${all:-see $f}" "${rtf:--}"
done
