# bench-lib.sh — what the side-by-side benchmark scripts share (sourced, not run).
#
# bench_run CMD...          runs CMD, without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE when the
#                           script set unset_coretype=1 (--unset-openblas-coretype: both sides,
#                           benchmark commands only; tests/bench/README.md, "Benchmarks")
# bench_coretype_note       what the OpenBLAS environment was, for the report
# bench_blas_version        the installed OpenBLAS package and version
# bench_cpu                 the CPU's model name
bench_run() {
  if [ "${unset_coretype:-0}" = 1 ]; then
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"
  else
    "$@"
  fi
}

bench_coretype_note() {
  if [ "${unset_coretype:-0}" = 1 ]; then
    echo "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for both sides (--unset-openblas-coretype)"
  else
    echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-<unset>} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-<unset>}"
  fi
}

bench_blas_version() {
  v=$(dpkg-query -W -f '${Package} ${Version}\n' 'libopenblas0*' 2>/dev/null | awk 'NF == 2' \
    | head -n 1)
  echo "${v:-unknown}"
}

bench_cpu() {
  sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1
}
