/* backends/opencl/opencl_symbols.h: every OpenCL entry point the backend
 * calls, one line each: X(return type, name, (parameters)).
 *
 * Expanded into the members of kiln_opencl_symbols (opencl_library.h) and
 * into the resolver. A missing REQUIRED symbol makes the backend
 * unavailable; a missing OPTIONAL one leaves its pointer NULL and the caller
 * takes the older path. All of the required ones are OpenCL 1.2. */
#ifndef KILN_BACKENDS_OPENCL_SYMBOLS_H
#define KILN_BACKENDS_OPENCL_SYMBOLS_H

#include "backends/opencl/opencl_types.h"

#define KILN_OPENCL_REQUIRED_SYMBOLS(X)                                        \
  X(cl_int, clGetPlatformIDs,                                                  \
    (cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms))  \
  X(cl_int, clGetPlatformInfo,                                                 \
    (cl_platform_id platform, cl_platform_info param, size_t size,             \
     void *value, size_t *size_ret))                                           \
  X(cl_int, clGetDeviceIDs,                                                    \
    (cl_platform_id platform, cl_device_type type, cl_uint num_entries,        \
     cl_device_id *devices, cl_uint *num_devices))                             \
  X(cl_int, clGetDeviceInfo,                                                   \
    (cl_device_id device, cl_device_info param, size_t size, void *value,      \
     size_t *size_ret))                                                        \
  X(cl_context, clCreateContext,                                               \
    (const cl_context_properties *properties, cl_uint num_devices,             \
     const cl_device_id *devices, cl_context_notify notify, void *user_data,   \
     cl_int *errcode_ret))                                                     \
  X(cl_int, clReleaseContext, (cl_context context))                            \
  X(cl_command_queue, clCreateCommandQueue,                                    \
    (cl_context context, cl_device_id device,                                  \
     cl_command_queue_properties properties, cl_int *errcode_ret))             \
  X(cl_int, clReleaseCommandQueue, (cl_command_queue queue))                   \
  X(cl_int, clFlush, (cl_command_queue queue))                                 \
  X(cl_int, clFinish, (cl_command_queue queue))                                \
  X(cl_mem, clCreateBuffer,                                                    \
    (cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,      \
     cl_int *errcode_ret))                                                     \
  X(cl_mem, clCreateSubBuffer,                                                 \
    (cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type,            \
     const void *info, cl_int *errcode_ret))                                   \
  X(cl_int, clReleaseMemObject, (cl_mem memobj))                               \
  X(cl_int, clRetainMemObject, (cl_mem memobj))                                \
  X(cl_int, clGetMemObjectInfo,                                                \
    (cl_mem memobj, cl_mem_info name, size_t size, void *value,                \
     size_t *size_ret))                                                        \
  X(cl_int, clEnqueueReadBuffer,                                               \
    (cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,   \
     size_t size, void *ptr, cl_uint num_events, const cl_event *wait_list,    \
     cl_event *event))                                                         \
  X(cl_int, clEnqueueWriteBuffer,                                              \
    (cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,   \
     size_t size, const void *ptr, cl_uint num_events,                         \
     const cl_event *wait_list, cl_event *event))                              \
  X(cl_int, clEnqueueCopyBuffer,                                               \
    (cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,        \
     size_t dst_offset, size_t size, cl_uint num_events,                       \
     const cl_event *wait_list, cl_event *event))                              \
  X(void *, clEnqueueMapBuffer,                                                \
    (cl_command_queue queue, cl_mem buffer, cl_bool blocking,                  \
     cl_map_flags flags, size_t offset, size_t size, cl_uint num_events,       \
     const cl_event *wait_list, cl_event *event, cl_int *errcode_ret))         \
  X(cl_int, clEnqueueUnmapMemObject,                                           \
    (cl_command_queue queue, cl_mem memobj, void *mapped, cl_uint num_events,  \
     const cl_event *wait_list, cl_event *event))                              \
  X(cl_int, clEnqueueMarkerWithWaitList,                                       \
    (cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,    \
     cl_event *event))                                                         \
  X(cl_int, clEnqueueBarrierWithWaitList,                                      \
    (cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,    \
     cl_event *event))                                                         \
  X(cl_int, clWaitForEvents, (cl_uint num_events, const cl_event *events))     \
  X(cl_int, clRetainEvent, (cl_event event))                                   \
  X(cl_int, clReleaseEvent, (cl_event event))                                  \
  X(cl_int, clGetEventProfilingInfo,                                           \
    (cl_event event, cl_profiling_info param, size_t size, void *value,        \
     size_t *size_ret))                                                        \
  X(cl_program, clCreateProgramWithSource,                                     \
    (cl_context context, cl_uint count, const char **strings,                  \
     const size_t *lengths, cl_int *errcode_ret))                              \
  X(cl_program, clCreateProgramWithBinary,                                     \
    (cl_context context, cl_uint num_devices, const cl_device_id *devices,     \
     const size_t *lengths, const unsigned char **binaries,                    \
     cl_int *binary_status, cl_int *errcode_ret))                              \
  X(cl_int, clBuildProgram,                                                    \
    (cl_program program, cl_uint num_devices, const cl_device_id *devices,     \
     const char *options, cl_program_notify notify, void *user_data))          \
  X(cl_int, clGetProgramInfo,                                                  \
    (cl_program program, cl_program_info param, size_t size, void *value,      \
     size_t *size_ret))                                                        \
  X(cl_int, clGetProgramBuildInfo,                                             \
    (cl_program program, cl_device_id device, cl_program_build_info param,     \
     size_t size, void *value, size_t *size_ret))                              \
  X(cl_int, clReleaseProgram, (cl_program program))                            \
  X(cl_kernel, clCreateKernel,                                                 \
    (cl_program program, const char *name, cl_int *errcode_ret))               \
  X(cl_int, clReleaseKernel, (cl_kernel kernel))                               \
  X(cl_int, clGetKernelInfo,                                                   \
    (cl_kernel kernel, cl_kernel_info param, size_t size, void *value,         \
     size_t *size_ret))                                                        \
  X(cl_int, clGetKernelWorkGroupInfo,                                          \
    (cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param,   \
     size_t size, void *value, size_t *size_ret))                              \
  X(cl_int, clSetKernelArg,                                                    \
    (cl_kernel kernel, cl_uint index, size_t size, const void *value))         \
  X(cl_int, clEnqueueNDRangeKernel,                                            \
    (cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,               \
     const size_t *global_offset, const size_t *global_size,                   \
     const size_t *local_size, cl_uint num_events, const cl_event *wait_list,  \
     cl_event *event))

/* OpenCL 2.0: used for devices of version 2.0 or later, where
 * clCreateCommandQueue is deprecated. */
#define KILN_OPENCL_OPTIONAL_SYMBOLS(X)                                        \
  X(cl_command_queue, clCreateCommandQueueWithProperties,                      \
    (cl_context context, cl_device_id device,                                  \
     const cl_queue_properties *properties, cl_int *errcode_ret))

#endif
