#!/usr/bin/env bash
# Regenerates the small audio fixtures in testdata/audio/ that shared/audio/probe's
# tests and fuzz seeds use. The outputs are committed, so tests never need sox or
# lame; run this only to change or add a fixture (needs: apt-get install sox
# libsox-fmt-mp3 lame). Tones are synthesised, so the output is repeatable apart
# from the encoder version string lame writes into its Info frame.
#
# The MP3s are encoded by lame from a WAV that sox synthesises at the target rate,
# so the MPEG version follows from the sample rate (8 kHz -> MPEG-2.5, 16 kHz ->
# MPEG-2, 44.1 kHz -> MPEG-1). The duration in each name is the length of the
# source audio, which is what the tests check the probe against.
set -euo pipefail

for tool in sox lame; do
	command -v "$tool" >/dev/null || { echo "make-audio-fixtures: $tool not installed (apt-get install sox libsox-fmt-mp3 lame)" >&2; exit 1; }
done

root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/testdata/audio"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
rm -f "$out"/*.mp3 "$out"/*.wav "$out"/*.flac "$out"/*.ogg

# synth RATE CHANNELS SECONDS OUT [sox synth args...]: a 16-bit PCM WAV.
# -R makes sox's dither/noise repeatable.
synth() {
	local rate=$1 ch=$2 secs=$3 dst=$4
	shift 4
	sox -R -n -r "$rate" -c "$ch" -b 16 "$dst" synth "$secs" "$@" vol 0.5
}

# --- MP3 -------------------------------------------------------------------
# lame flags: --quiet, -m m/j mono/joint stereo, -b CBR kbps, --noreplaygain keeps
# the output independent of analysis. Default lame writes a Xing/"Info" frame
# first; -t suppresses it (one fixture is a bare frame stream).

# lame only writes the Info frame (which records the encoder delay and padding,
# so the exact source length can be recovered) when a frame is big enough to hold
# it: >= 24 kbps at 8 kHz. Below that the decoded length is longer than the source
# by the encoder delay + padding; the noinfo fixtures cover that case.

# 8 kHz mono, 24 kbps: MPEG-2.5 Layer III, the telephone case. 2.0 s.
synth 8000 1 2.0 "$tmp/a.wav" sine 440
lame --quiet --noreplaygain -m m -b 24 "$tmp/a.wav" "$out/tone-8k-mono-mpeg25-24k-2.0s.mp3"

# 8 kHz mono, 16 kbps, no Info frame (-t): telephone MP3 as many recorders write it. 2.0 s.
lame --quiet --noreplaygain -m m -b 16 -t "$tmp/a.wav" "$out/noinfo-8k-mono-mpeg25-16k-2.0s.mp3"

# 16 kHz mono, 48 kbps: MPEG-2 Layer III. 1.5 s.
synth 16000 1 1.5 "$tmp/b.wav" sine 300-3000
lame --quiet --noreplaygain -m m -b 48 "$tmp/b.wav" "$out/tone-16k-mono-mpeg2-48k-1.5s.mp3"

# 44.1 kHz stereo (joint), 128 kbps: MPEG-1 Layer III. 1.0 s.
synth 44100 2 1.0 "$tmp/c.wav" sine 440 sine 660
lame --quiet --noreplaygain -m j -b 128 "$tmp/c.wav" "$out/tone-44k1-stereo-mpeg1-128k-1.0s.mp3"

# 8 kHz mono noise with an ID3v2 tag in front (padded, as taggers do). 3.0 s.
synth 8000 1 3.0 "$tmp/d.wav" pinknoise
lame --quiet --noreplaygain -m m -b 24 --id3v2-only --pad-id3v2-size 512 \
	--tt "callscribe fixture" --ta "callscribe" --tc "ID3v2 tag before the first frame" \
	"$tmp/d.wav" "$out/id3v2-noise-8k-mono-mpeg25-24k-3.0s.mp3"

# 16 kHz mono VBR without the Info/Xing frame (-t): the duration can only come
# from counting frames, whose bitrates differ. 1.0 s.
synth 16000 1 1.0 "$tmp/e.wav" sine 200-2000 pinknoise
lame --quiet --noreplaygain -m m -V 4 -t "$tmp/e.wav" "$out/vbr-noinfo-16k-mono-mpeg2-1.0s.mp3"

# MP3 content under a .wav name: the probe decides by content, never by name.
cp "$out/noinfo-8k-mono-mpeg25-16k-2.0s.mp3" "$out/mp3-content-named.wav"

# --- WAV written by a real-world tool ----------------------------------------
# sox writes a plain PCM header for 16-bit mono and WAVE_FORMAT_EXTENSIBLE for
# 24-bit stereo, so both header shapes are covered by files nobody hand-built.
synth 8000 1 0.5 "$out/tone-8k-mono-s16-0.5s.wav" sine 440
sox -R -n -r 16000 -c 2 -b 24 "$out/tone-16k-stereo-s24-0.25s.wav" synth 0.25 sine 440 sine 880 vol 0.5

# --- Not MP3/WAV: must be rejected as UNSUPPORTED_AUDIO_FORMAT ----------------
synth 8000 1 0.5 "$tmp/f.wav" sine 440
sox -R "$tmp/f.wav" "$out/tone-8k-mono-0.5s.flac"
sox -R "$tmp/f.wav" -C 0 "$out/tone-8k-mono-0.5s.ogg"

ls -l "$out"
