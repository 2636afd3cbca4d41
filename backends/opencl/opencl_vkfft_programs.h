/* backends/opencl/opencl_vkfft_programs.h: VkFFT's OpenCL programs through
 * core's disk cache (internal; docs/fft.md, "VkFFT's kernels in the disk
 * cache").
 *
 * VkFFT generates OpenCL C and builds it for every plan it makes, in every
 * process. vkfft_shim/CL/cl.h sends its clCreateProgramWithSource and
 * clBuildProgram here: while a plan is being made on this thread (between
 * begin and end), a program whose source the cache holds is loaded from
 * its binary and built at once (the build VkFFT asks for next is then a
 * no-op); any other one is built from source as VkFFT asked and its binary
 * stored. The key is the generated source itself, prefixed with VkFFT's
 * version, so everything a plan's parameters change in a kernel is in it;
 * core adds the device, driver and kiln's version. An entry that is
 * refused or does not build is compiled from source instead: the cache
 * never fails a plan. Outside a plan (or with no cache lent) both calls
 * are the loader's. */
#ifndef KILN_BACKENDS_OPENCL_VKFFT_PROGRAMS_H
#define KILN_BACKENDS_OPENCL_VKFFT_PROGRAMS_H

#include "backends/opencl/opencl_backend.h"

/* One plan's programs, on the stack of the thread making it. */
typedef struct kiln_vkfft_programs {
  kiln_backend_device *device;
  const kiln_backend_program_cache *cache; /* NULL: compile, keep nothing */
  const char *library;                     /* "VkFFT 1.2.26": the key's first line */
  cl_program loaded;  /* built from the cache: VkFFT's build of it is skipped */
  cl_program pending; /* made from source: stored once built */
  char *pending_key;
  unsigned from_cache, compiled; /* counts, for the plan's debug line */
} kiln_vkfft_programs;

/* Makes *programs this thread's current set (VkFFT runs on the caller's
 * thread) until kiln_vkfft_programs_end. */
void kiln_vkfft_programs_begin(kiln_vkfft_programs *programs, kiln_backend_device *device,
                               const kiln_backend_program_cache *cache, const char *library);
void kiln_vkfft_programs_end(kiln_vkfft_programs *programs);

/* What VkFFT's clCreateProgramWithSource and clBuildProgram call. */
cl_program kiln_vkfft_create_program(cl_context context, cl_uint count, const char **strings,
                                     const size_t *lengths, cl_int *errcode);
cl_int kiln_vkfft_build_program(cl_program program, cl_uint count, const cl_device_id *devices,
                                const char *options, cl_program_notify notify, void *data);

#endif
