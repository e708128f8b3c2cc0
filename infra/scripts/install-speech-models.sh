#!/usr/bin/env bash
# install-speech-models.sh installs the neural speech model the engine package
# shared/engines/moonshine decodes with, from the npm registry, into
# .cache/speech-models/moonshine-tiny (or $1):
#   - encoder_model.onnx, decoder_model_merged.onnx: Moonshine tiny (English,
#     MIT licence), the quantized ONNX export npm's @moonshine-ai/moonshine-js
#     ships for the browser;
#   - tokens.txt: the SentencePiece pieces its ids name, one a line, from
#     npm's llama-tokenizer-js (Moonshine's vocabulary is LLaMA's);
#   - libonnxruntime.so.1: ONNX Runtime's C library for linux-x64 from npm's
#     onnxruntime-node, which the engine loads at run time.
# Each package is fetched with `npm pack` (the tarball alone, none of its
# JavaScript dependencies) and checked against the integrity pinned here.
# Idempotent: a stamp with the pinned integrities skips a second install.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest="${1:-$root/.cache/speech-models/moonshine-tiny}"

# package@version integrity (npm's sha512, base64)
PACKAGES=(
	"@moonshine-ai/moonshine-js@0.1.29 sha512-Gx1B3mJcbM68ihSy/LyJEuEkGq7sYMqTb04zNdcIeidU0URVlSmXP0GyiQOTTAqDZQXlIC7k+bky+FdXk0UPlg=="
	"onnxruntime-node@1.24.3 sha512-JH7+czbc8ALA819vlTgcV+Q214/+VjGeBHDjX81+ZCD0PCVCIFGFNtT0V4sXG/1JXypKPgScQcB3ij/hk3YnTg=="
	"llama-tokenizer-js@1.2.2 sha512-Wmth393dc3odWU3IzARJ3r2oIfWgw9GdJ5Gm+hGhfECNO18UHLRqEFSf511jn4E9KcQGzuuKw4Wl08pHAemLAw=="
)
want="$(printf '%s\n' "${PACKAGES[@]}" | sha256sum | cut -d' ' -f1)"
stamp="$dest/.installed"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
	echo "install-speech-models: ONNX Runtime is installed for linux-x64 only (this is $(uname -s)-$(uname -m))" >&2
	exit 1
fi

# shellcheck source=debian.sh
. "$root/infra/scripts/debian.sh"
ensure_debian_package npm nodejs npm

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarballs=()
for entry in "${PACKAGES[@]}"; do
	spec="${entry%% *}"
	integrity="${entry#* }"
	file="$(cd "$work" && npm pack --silent --loglevel=error "$spec" | tail -n 1)"
	got="sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$work/$file")"
	if [ "$got" != "$integrity" ]; then
		echo "install-speech-models: $spec has integrity $got, want $integrity" >&2
		exit 1
	fi
	tarballs+=("$work/$file")
done

mkdir -p "$work/x" "$dest"
tar -xzf "${tarballs[0]}" -C "$work/x" package/dist/model/tiny/quantized/encoder_model.onnx package/dist/model/tiny/quantized/decoder_model_merged.onnx package/LICENSE
mv "$work/x/package/dist/model/tiny/quantized/"*.onnx "$dest/"
mv "$work/x/package/LICENSE" "$dest/LICENSE.moonshine"
rm -rf "$work/x/package"
# onnxruntime-node ships no licence file; its package.json names it (MIT).
tar -xzf "${tarballs[1]}" -C "$work/x" package/bin/napi-v6/linux/x64/libonnxruntime.so.1 package/package.json
mv "$work/x/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$dest/"
mv "$work/x/package/package.json" "$dest/onnxruntime-node.package.json"
rm -rf "$work/x/package"
tar -xzf "${tarballs[2]}" -C "$work/x" package/llama-tokenizer.js
# The pieces are one base64 string in the script, newline-separated in id
# order; decoded here so the engine reads a plain file.
node -e '
const src = require("fs").readFileSync(process.argv[1], "utf8");
const m = src.match(/llama_vocab_base64\s*=\s*"([A-Za-z0-9+\/=]+)"/);
if (!m) { console.error("install-speech-models: no vocabulary in llama-tokenizer.js"); process.exit(1); }
process.stdout.write(Buffer.from(m[1], "base64").toString("utf8"));
' "$work/x/package/llama-tokenizer.js" > "$dest/tokens.txt"
echo "$want" > "$stamp"
echo "install-speech-models: Moonshine tiny and ONNX Runtime installed in $dest" >&2
