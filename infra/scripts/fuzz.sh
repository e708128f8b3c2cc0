#!/usr/bin/env bash
# fuzz.sh FUZZTIME: runs every fuzz target in the module for FUZZTIME each
# (e.g. 200000x, or a duration such as 10s). Prefer counts: with a duration,
# go1.26's fuzz coordinator can report "context deadline exceeded" for a clean
# run that ends while a worker is mid-input (golang/go#75804, fixed in go1.27). Targets are found by grepping `^func Fuzz` in *_test.go,
# so targets added to any package later are picked up without editing this file.
# `go test -fuzz` accepts one target per package run, hence one run per target.
# Minimising each newly interesting input may take go test's default 60s (its
# minimiser is quadratic in input length), which would swallow a short run, so it
# is capped at FUZZMINIMIZETIME (default 2000x; also bounds crash minimisation).
# Exits non-zero if any target fails (a failing input is saved under the package's
# testdata/fuzz/<Target>/ by go test, which prints how to re-run it).
set -uo pipefail

fuzztime=${1:-200000x}
minimizetime=${FUZZMINIMIZETIME:-2000x}
# slowtargets: a target whose each input costs far more than the others' gets a
# tenth of a count-based FUZZTIME, so make test's short pass stays short;
# FuzzDecodeMP3Go (the pure-Go MP3 decoder) runs about 1,500 inputs a second
# against 15,000+ for the others, so 200000x took it 2 min 20 s alone.
declare -A slowtargets=([FuzzDecodeMP3Go]=1)
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

# "dir<TAB>FuzzName" for each target, skipping vendored code and testdata.
mapfile -t targets < <(
	grep -rE --include='*_test.go' --exclude-dir=vendor --exclude-dir=testdata --exclude-dir=node_modules \
		-o '^func Fuzz[A-Za-z0-9_]*' . |
		sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)$#\1\t\2#' |
		sort -u
)

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz.sh: no fuzz targets found"
	exit 0
fi

failed=()
for t in "${targets[@]}"; do
	dir=${t%%$'\t'*}
	name=${t#*$'\t'}
	runtime=$fuzztime
	if [[ -n ${slowtargets[$name]:-} && $fuzztime =~ ^([0-9]+)x$ ]]; then
		runtime="$(((BASH_REMATCH[1] + 9) / 10))x" # at least 1x: go test refuses 0x
	fi
	echo "=== fuzz $dir $name ($runtime)"
	if ! go test -run='^$' -fuzz="^${name}\$" -fuzztime="$runtime" -fuzzminimizetime="$minimizetime" "$dir"; then
		failed+=("$dir $name")
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz.sh: ${#failed[@]} of ${#targets[@]} target(s) failed:" >&2
	printf '  %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz.sh: all ${#targets[@]} target(s) passed"
