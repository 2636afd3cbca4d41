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
               hidden_layer cartesian_to_polar reduce_sum reduce_monte_carlo_pi; do
  if [ -x "$build/examples/$example" ]; then
    echo "== $example"
    "$build/examples/$example"
  fi
done
echo "== tour done"
