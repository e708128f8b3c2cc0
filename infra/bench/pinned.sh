# pinned.sh: sourced by the ASR bench scripts. run_pinned OUT CMD... runs one
# decoder (GOMAXPROCS=1) pinned to the next core in turn, its output in OUT,
# with at most one run per core at a time; wait_pinned waits for the rest.
# Pinning keeps each run's CPU time, and so its real-time factor, its own.
pinned_cores=$(nproc)
pinned_next=0
pinned_pids=()

run_pinned() {
	local out=$1
	shift
	GOMAXPROCS=1 taskset -c "$((pinned_next % pinned_cores))" "$@" >"$out" 2>&1 &
	pinned_pids+=($!)
	pinned_next=$((pinned_next + 1))
	if ((${#pinned_pids[@]} >= pinned_cores)); then
		wait "${pinned_pids[0]}" || true
		pinned_pids=("${pinned_pids[@]:1}")
	fi
}

wait_pinned() {
	wait || true
}
