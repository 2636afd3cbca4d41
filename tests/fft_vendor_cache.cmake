# fft_vendor_cache.<backend> (tests/test_fft_vendor_cache.c, docs/fft.md):
# under KILN_FFT=vendor, a library plan's scratch comes from the memory pool
# (VkFFT, cuFFT, hipFFT) and VkFFT's OpenCL programs go through the disk
# cache (loaded by a second context, a damaged or symlinked entry compiled
# again and replaced, nothing written with the cache off).
kiln_conformance_test(fft_vendor_cache SOURCES test_fft_vendor_cache.c INTERNAL
                      LABELS fft ENV KILN_FFT=vendor)
