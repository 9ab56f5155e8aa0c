# Sourced by build_tools/build_rocksdb_fork.sh and stress/stress.sh, whose long
# builds print a progress line every 30 s: the last "[ NN%]" of the build's
# log, through the caller's say() and elapsed().
#
# wait_with_progress PID LOG LABEL: waits for the background job PID, saying
# "LABEL, <elapsed> build [ NN%]" every 30 s; returns the job's status.
wait_with_progress() {
  _wp_pid=$1 _wp_log=$2 _wp_label=$3
  _wp_n=0
  while kill -0 "$_wp_pid" 2>/dev/null; do
    sleep 1
    _wp_n=$((_wp_n + 1))
    if [ $((_wp_n % 30)) -eq 0 ]; then
      _wp_pct=$(grep -o '^\[ *[0-9]*%\]' "$_wp_log" | tail -n 1 || true)
      say "$_wp_label, $(elapsed)${_wp_pct:+ build $_wp_pct}"
    fi
  done
  wait "$_wp_pid"
}
