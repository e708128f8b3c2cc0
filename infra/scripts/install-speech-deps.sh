#!/usr/bin/env bash
# install-speech-deps.sh installs the Debian packages the embedded speech engine
# (PocketSphinx + mpg123 through cgo), its tests (flite speech synthesis) and the
# ASR bench (sox, lame, the LibriVox test clips, the Asterisk PBX's recorded
# English prompts and their text) need. The Asterisk prompts in French,
# Italian and Russian at 16 kHz (G.722, decoded through spandsp) are the
# recorded speech the narrowband map is fitted on (make narrowband-map). It is idempotent: when every
# package is already installed it only runs one dpkg-query and exits, so `make run`
# and `make test` can call it every time. espeak-ng gives the narrowband-map
# trainer (make narrowband-map) voices that the ASR bench's calls do not use;
# sphinxtrain (bw, mllr_solve) estimates the 8 kHz MLLR transforms (make
# narrowband-adapt), and the engine runs the same tools to adapt to each
# telephone channel's speaker (SPEAKER_ADAPTATION, on by default).
set -euo pipefail

PKGS=(
	pkg-config
	libpocketsphinx-dev
	pocketsphinx-en-us
	libmpg123-dev
	flite
	espeak-ng
	sox
	sphinxtrain
	libsox-fmt-mp3
	lame
	pocketsphinx-testdata
	asterisk-core-sounds-en
	asterisk-core-sounds-en-wav
	asterisk-core-sounds-en-g722
	asterisk-core-sounds-fr-g722
	asterisk-core-sounds-it-g722
	asterisk-core-sounds-ru-g722
	libspandsp-dev
)

missing=()
for p in "${PKGS[@]}"; do
	# dpkg-query prints "install ok installed" only for a fully installed package.
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	if [[ "$status" != "install ok installed" ]]; then
		missing+=("$p")
	fi
done

if ((${#missing[@]} == 0)); then
	exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-speech-deps: missing packages (${missing[*]}) and no apt-get; install them by hand" >&2
	exit 1
fi

SUDO=()
if [[ "$(id -u)" != 0 ]]; then
	SUDO=(sudo)
fi

echo "install-speech-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Other installers (make deps-aws, a parallel session) may hold the dpkg lock:
# wait for it instead of failing.
APT=(apt-get -o DPkg::Lock::Timeout=600)
"${SUDO[@]}" "${APT[@]}" update -qq
"${SUDO[@]}" "${APT[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-speech-deps: done" >&2
