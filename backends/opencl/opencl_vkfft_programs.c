/* backends/opencl/opencl_vkfft_programs.c: VkFFT's programs through core's
 * disk cache (opencl_vkfft_programs.h says how and why).
 *
 * Why not VkFFT's own saveApplicationToString / loadApplicationFromString:
 * in 1.2.26 its OpenCL path writes each program binary with sprintf("%s")
 * and reads it back as text of the announced size less two bytes, which
 * holds for NVIDIA's PTX but cuts any binary with a zero byte (PoCL's, and
 * most vendors'), and a damaged binary can crash a driver. Caught at the
 * cl* calls, each program is one entry keyed by its own source, in kiln's
 * checked envelope (opencl_binary.h) inside the disk cache's checked file. */
#include "backends/opencl/opencl_vkfft_programs.h"

#include <stdlib.h>
#include <string.h>

#include "core/runtime/log.h"
#include "core/runtime/strbuf.h"

static _Thread_local kiln_vkfft_programs *current;

void kiln_vkfft_programs_begin(kiln_vkfft_programs *programs, kiln_backend_device *device,
                               const kiln_backend_program_cache *cache, const char *library) {
  memset(programs, 0, sizeof *programs);
  programs->device = device;
  programs->cache = cache;
  programs->library = library;
  current = programs;
}

void kiln_vkfft_programs_end(kiln_vkfft_programs *programs) {
  free(programs->pending_key);
  programs->pending_key = NULL;
  programs->pending = programs->loaded = NULL;
  current = NULL;
}

/* The process's loader table, for a call outside a plan (none in 1.2.26:
 * VkFFT builds only in initializeVkFFT; kept for a later version). */
static const kiln_opencl_symbols *loader(void) {
  const kiln_opencl_symbols *cl = NULL;
  if (current) return current->device->cl;
  return kiln_opencl_library_load(&cl) == KILN_OK ? cl : NULL;
}

cl_program kiln_vkfft_create_program(cl_context context, cl_uint count, const char **strings,
                                     const size_t *lengths, cl_int *errcode) {
  const kiln_opencl_symbols *cl = loader();
  kiln_vkfft_programs *p = current;
  if (!cl) {
    if (errcode) *errcode = CL_INVALID_VALUE;
    return NULL;
  }
  if (!p || !p->cache || count != 1 || !strings || !strings[0])
    return cl->clCreateProgramWithSource(context, count, strings, lengths, errcode);
  kiln_strbuf key = {0};
  kiln_strbuf_appendf(&key, "%s OpenCL program\n", p->library);
  kiln_strbuf_append_n(&key, strings[0], lengths && lengths[0] ? lengths[0] : strlen(strings[0]));
  if (kiln_strbuf_status(&key) != KILN_OK) {
    kiln_strbuf_free(&key);
    return cl->clCreateProgramWithSource(context, count, strings, lengths, errcode);
  }
  kiln_backend_module *module = p->cache->load(p->cache->owner, kiln_strbuf_text(&key));
  if (module) {
    /* loaded and built by module_load_binary: VkFFT's build is skipped */
    cl_program program = module->program;
    free(module);
    kiln_strbuf_free(&key);
    p->loaded = program;
    p->from_cache++;
    kiln_log(KILN_LOG_DEBUG, "opencl: %s program loaded from the disk cache", p->library);
    if (errcode) *errcode = CL_SUCCESS;
    return program;
  }
  cl_program program = cl->clCreateProgramWithSource(context, count, strings, lengths, errcode);
  if (program) {
    free(p->pending_key);
    p->pending = program;
    p->pending_key = kiln_strbuf_take(&key);
  }
  kiln_strbuf_free(&key);
  return program;
}

cl_int kiln_vkfft_build_program(cl_program program, cl_uint count, const cl_device_id *devices,
                                const char *options, cl_program_notify notify, void *data) {
  const kiln_opencl_symbols *cl = loader();
  kiln_vkfft_programs *p = current;
  if (!cl) return CL_INVALID_VALUE;
  if (p && program && program == p->loaded) {
    p->loaded = NULL;
    return CL_SUCCESS;
  }
  cl_int code = cl->clBuildProgram(program, count, devices, options, notify, data);
  if (p && program && program == p->pending) {
    /* the key holds the source only: a build with options of its own
     * (none in 1.2.26) is not kept */
    if (code == CL_SUCCESS && p->pending_key && (!options || !options[0])) {
      p->compiled++;
      kiln_log(KILN_LOG_DEBUG, "opencl: %s program compiled (not in the disk cache); storing it",
               p->library);
      kiln_backend_module module = {.program = program};
      p->cache->store(p->cache->owner, p->pending_key, &module);
    }
    free(p->pending_key);
    p->pending_key = NULL;
    p->pending = NULL;
  }
  return code;
}
