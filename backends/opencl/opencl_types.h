/* backends/opencl/opencl_types.h: the few OpenCL 1.2 types and constants the
 * backend uses, declared here so that kiln builds without the OpenCL headers
 * (values as in Khronos' CL/cl.h; checked against it in development). */
#ifndef KILN_BACKENDS_OPENCL_TYPES_H
#define KILN_BACKENDS_OPENCL_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Linux calling convention: the Khronos CL_API_CALL / CL_CALLBACK are empty. */
#define KILN_CL_API

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_uint cl_bool;
typedef cl_ulong cl_bitfield;

typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

typedef cl_uint cl_platform_info;
typedef cl_bitfield cl_device_type;
typedef cl_uint cl_device_info;
typedef cl_bitfield cl_device_fp_config;
typedef intptr_t cl_context_properties;
typedef cl_bitfield cl_command_queue_properties;
typedef cl_bitfield cl_queue_properties; /* OpenCL 2.0 */
typedef cl_bitfield cl_mem_flags;
typedef cl_uint cl_mem_info;
typedef cl_bitfield cl_map_flags;
typedef cl_uint cl_buffer_create_type;
typedef cl_uint cl_program_info;
typedef cl_uint cl_program_build_info;
typedef cl_int cl_build_status;
typedef cl_uint cl_kernel_info;
typedef cl_uint cl_kernel_work_group_info;
typedef cl_uint cl_profiling_info;

typedef struct cl_buffer_region {
  size_t origin;
  size_t size;
} cl_buffer_region;

typedef void(KILN_CL_API *cl_context_notify)(const char *errinfo,
                                             const void *private_info,
                                             size_t cb, void *user_data);
typedef void(KILN_CL_API *cl_program_notify)(cl_program program,
                                             void *user_data);

#define CL_FALSE 0u
#define CL_TRUE 1u

/* Result codes (the full list with names is in opencl_status.c). */
#define CL_SUCCESS 0
#define CL_DEVICE_NOT_FOUND (-1)
#define CL_BUILD_PROGRAM_FAILURE (-11)
#define CL_INVALID_VALUE (-30)
#define CL_INVALID_BINARY (-42)
#define CL_INVALID_KERNEL_NAME (-46)
#define CL_PLATFORM_NOT_FOUND_KHR (-1001)

/* clGetPlatformInfo */
#define CL_PLATFORM_VERSION 0x0901u
#define CL_PLATFORM_NAME 0x0902u
#define CL_PLATFORM_VENDOR 0x0903u

/* clGetDeviceIDs / clGetDeviceInfo */
#define CL_DEVICE_TYPE 0x1000u
#define CL_DEVICE_TYPE_CPU (1u << 1)
#define CL_DEVICE_TYPE_GPU (1u << 2)
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define CL_DEVICE_MAX_COMPUTE_UNITS 0x1002u
#define CL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004u
#define CL_DEVICE_MAX_MEM_ALLOC_SIZE 0x1010u
#define CL_DEVICE_MEM_BASE_ADDR_ALIGN 0x1019u
#define CL_DEVICE_GLOBAL_MEM_CACHE_SIZE 0x101Eu
#define CL_DEVICE_GLOBAL_MEM_SIZE 0x101Fu
#define CL_DEVICE_LOCAL_MEM_SIZE 0x1023u
#define CL_DEVICE_AVAILABLE 0x1027u
#define CL_DEVICE_COMPILER_AVAILABLE 0x1028u
#define CL_DEVICE_NAME 0x102Bu
#define CL_DEVICE_VENDOR 0x102Cu
#define CL_DRIVER_VERSION 0x102Du
#define CL_DEVICE_VERSION 0x102Fu
#define CL_DEVICE_DOUBLE_FP_CONFIG 0x1032u
#define CL_DEVICE_SINGLE_FP_CONFIG 0x101Bu
#define CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT (1u << 7)
#define CL_DEVICE_OPENCL_C_VERSION 0x103Du

/* clCreateContext */
#define CL_CONTEXT_PLATFORM 0x1084

/* command queues */
#define CL_QUEUE_PROFILING_ENABLE (1u << 1)
#define CL_QUEUE_PROPERTIES 0x1093u

/* memory */
#define CL_MEM_READ_WRITE (1u << 0)
#define CL_MEM_USE_HOST_PTR (1u << 3)
#define CL_MEM_ALLOC_HOST_PTR (1u << 4)
#define CL_MEM_SIZE 0x1102u
#define CL_MEM_CONTEXT 0x1106u
#define CL_MAP_READ (1u << 0)
#define CL_MAP_WRITE (1u << 1)
#define CL_BUFFER_CREATE_TYPE_REGION 0x1220u

/* programs and kernels */
#define CL_PROGRAM_BINARY_SIZES 0x1165u
#define CL_PROGRAM_BINARIES 0x1166u
#define CL_PROGRAM_BUILD_LOG 0x1183u
#define CL_KERNEL_NUM_ARGS 0x1191u
#define CL_KERNEL_WORK_GROUP_SIZE 0x11B0u
#define CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE 0x11B3u

/* event profiling */
#define CL_PROFILING_COMMAND_START 0x1282u
#define CL_PROFILING_COMMAND_END 0x1283u

#endif
