#!/usr/bin/env bash
# Installs what building and testing kiln needs on Debian/Ubuntu, skipping
# what is already there (safe to run again). Run as root (or with sudo).
#   compiler + build:  gcc, clang (+ its sanitizer runtime), cmake, make,
#                      pkg-config
#   OpenCL on the CPU: pocl-opencl-icd (PoCL), ocl-icd-opencl-dev (the ICD
#                      loader libOpenCL.so.1), opencl-headers, clinfo
#   interop:           libdlpack-dev (dlpack.h; third_party/dlpack is the
#                      fallback), libopenmpi-dev + openmpi-bin (the MPI
#                      examples and their mpi_* tests; kiln never links MPI)
#   matmul on OpenCL:  libclblast1 (CLBlast, dlopen'ed by the OpenCL backend;
#                      without it kiln's portable GEMM kernel is used);
#                      python3-numpy for bench/matmul_peers.py's CPU side
#   FFT on OpenCL:     libclfft2 (clFFT, dlopen'ed by the OpenCL backend;
#                      without it kiln's own FFT kernels are used) and
#                      libvkfft-dev (VkFFT, header-only: built into the
#                      OpenCL backend when CMake finds vkFFT.h, its cl* calls
#                      through kiln's loaded OpenCL table; the default OpenCL
#                      FFT library, docs/fft.md says why)
#   NumPy diff test:   python3, python3-venv (ci/numpy-venv.sh then pips
#                      NumPy 2 into .venv-numpy/)
#   HIP compile checks: libamdhip64-dev, rocm-device-libs (hiprtc + AMD
#                      device libraries; compile for AMD targets, no GPU)
# NVRTC comes from a CUDA toolkit in /usr/local/cuda when one is installed;
# without it the NVRTC compile check is skipped with its reason.
set -euo pipefail

packages=(gcc clang libclang-rt-dev cmake make pkg-config binutils pocl-opencl-icd
          ocl-icd-opencl-dev opencl-headers clinfo libdlpack-dev libopenmpi-dev openmpi-bin
          libclblast1 libclfft2 libvkfft-dev python3-numpy python3 python3-venv)
if [ "${KILN_SKIP_HIP:-0}" != 1 ]; then
  packages+=(libamdhip64-dev rocm-device-libs)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "ci/install-deps: all packages present"
  exit 0
fi
echo "ci/install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
