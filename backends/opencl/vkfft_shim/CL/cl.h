/* backends/opencl/vkfft_shim/CL/cl.h: what vkFFT.h gets for its
 * `#include <CL/cl.h>` (VKFFT_BACKEND 3), only in
 * backends/opencl/opencl_vkfft.c (the one source given this include
 * directory, CMakeLists.txt). Instead of Khronos' header: kiln's own OpenCL
 * types, the few constants VkFFT 1.2.26 uses beyond them, and each cl*
 * entry point VkFFT calls renamed to the member of kiln's loaded symbol
 * table (opencl_library.h), so VkFFT never links libOpenCL: its calls go
 * where every other call of the backend goes (KILN_OPENCL_PATH, the ICD
 * loader kiln dlopen'ed). clCreateProgramWithSource and clBuildProgram go
 * through core's disk cache first (opencl_vkfft_programs.h). The 17 names below are every cl* call in
 * vkFFT.h 1.2.26 (grep -o '\bcl[A-Z][A-Za-z]*(' vkFFT.h | sort -u); a
 * newer VkFFT calling another one fails to compile here (an undeclared
 * function under -Werror=implicit-function-declaration), never links one. */
#ifndef KILN_BACKENDS_OPENCL_VKFFT_SHIM_CL_H
#define KILN_BACKENDS_OPENCL_VKFFT_SHIM_CL_H

#include "backends/opencl/opencl_library.h"
#include "backends/opencl/opencl_vkfft_programs.h"

/* values as in Khronos' CL/cl.h */
#define CL_DEVICE_VENDOR_ID 0x1001u
#define CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS 0x1003u
#define CL_DEVICE_MAX_WORK_ITEM_SIZES 0x1005u
#define CL_MEM_READ_ONLY (1u << 2)
#define CL_MEM_COPY_HOST_PTR (1u << 5)

/* The table VkFFT's calls go through: set by opencl_vkfft.c before any
 * VkFFT call (the process's one table, kiln_opencl_library_load). */
extern const kiln_opencl_symbols *kiln_vkfft_cl;

/* these two through core's disk cache (opencl_vkfft_programs.h) */
#define clBuildProgram kiln_vkfft_build_program
#define clCreateBuffer (kiln_vkfft_cl->clCreateBuffer)
#define clCreateCommandQueue (kiln_vkfft_cl->clCreateCommandQueue)
#define clCreateKernel (kiln_vkfft_cl->clCreateKernel)
#define clCreateProgramWithBinary (kiln_vkfft_cl->clCreateProgramWithBinary)
#define clCreateProgramWithSource kiln_vkfft_create_program
#define clEnqueueNDRangeKernel (kiln_vkfft_cl->clEnqueueNDRangeKernel)
#define clEnqueueWriteBuffer (kiln_vkfft_cl->clEnqueueWriteBuffer)
#define clFinish (kiln_vkfft_cl->clFinish)
#define clGetDeviceInfo (kiln_vkfft_cl->clGetDeviceInfo)
#define clGetProgramBuildInfo (kiln_vkfft_cl->clGetProgramBuildInfo)
#define clGetProgramInfo (kiln_vkfft_cl->clGetProgramInfo)
#define clReleaseCommandQueue (kiln_vkfft_cl->clReleaseCommandQueue)
#define clReleaseKernel (kiln_vkfft_cl->clReleaseKernel)
#define clReleaseMemObject (kiln_vkfft_cl->clReleaseMemObject)
#define clReleaseProgram (kiln_vkfft_cl->clReleaseProgram)
#define clSetKernelArg (kiln_vkfft_cl->clSetKernelArg)

#endif
