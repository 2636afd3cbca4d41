#!/usr/bin/env bash
# The README's main job: installs what is missing, builds kiln, then runs
# kiln-info and every example on the default backend (PoCL when there is no
# GPU). Each example checks itself against plain C and exits non-zero on a
# wrong result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/ci/install-deps.sh"
build=$(bash "$root/ci/build.sh" | tail -n 1)
echo "== kiln-info"
"$build/tools/kiln-info"
for example in add_kernel monte_carlo_pi gaussian_pdf polar_distance zero_suppress \
               hidden_layer cartesian_to_polar gufunc_polar gufunc_average gufunc_l2_norm \
               matmul reduce_sum reduce_monte_carlo_pi random_weights waveform_peaks \
               sort_histogram search_histogram fft_filter; do
  if [ -x "$build/examples/$example" ]; then
    echo "== $example"
    "$build/examples/$example"
  fi
done
# The MPI examples on two ranks, when MPI was found (docs/interop.md).
for example in mpi_monte_carlo_pi mpi_sum; do
  if [ -x "$build/examples/$example" ] && command -v mpirun > /dev/null; then
    echo "== $example (mpirun -np 2)"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun --oversubscribe -np 2 "$build/examples/$example"
  fi
done
echo "== tour done"
