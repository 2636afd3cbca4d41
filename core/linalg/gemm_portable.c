/* core/linalg/gemm_portable.c: kiln's own GEMM kernel, one program per
 * element type made from the template kernels/builtin/gemm.kl. */
#include <stdio.h>
#include <string.h>

#include "core/linalg/linalg_internal.h"
#include "core/runtime/strbuf.h"

/* embedded from kernels/builtin/gemm.kl at build time */
extern const char kiln_builtin_gemm[];

#define GEMM_TILE 128 /* rows and columns of C per work-group */
#define GEMM_GROUP 16 /* work-items per group along each of dims 0 and 1 */
/* Most groups along the batch (dim 2); the kernel loops over the rest. On
 * GPUs the smallest limit a backend has; on CPU devices fewer, since
 * groups there run a few at a time anyway. */
#define GEMM_MAX_GROUPS_Z 65535
#define GEMM_MAX_GROUPS_Z_CPU 256

#define REAL_MAC "return c + a * b;"
/* (c.real + a.real b.real - a.imag b.imag, c.imag + a.real b.imag + a.imag b.real) */
#define COMPLEX_MAC                                                  \
  "c.real += a.real * b.real - a.imag * b.imag; "                   \
  "c.imag += a.real * b.imag + a.imag * b.real; return c;"

static const linalg_type types[] = {
    {KILN_FLOAT32, "float", "float", "", "", "(float)0", REAL_MAC, "kiln_gemm_float32"},
    {KILN_FLOAT64, "double", "double", "", "", "(double)0", REAL_MAC, "kiln_gemm_float64"},
    /* float32 compute, one rounding when C is stored */
    {KILN_FLOAT16, "kiln_half", "float", "kiln_half_to_float", "kiln_float_to_half", "0.0f",
     REAL_MAC, "kiln_gemm_float16"},
    {KILN_COMPLEX64, "kiln_complex64", "kiln_complex64", "", "",
     "kiln_complex64_make(0.0f, 0.0f)", COMPLEX_MAC, "kiln_gemm_complex64"},
    {KILN_COMPLEX128, "kiln_complex128", "kiln_complex128", "", "",
     "kiln_complex128_make(0.0, 0.0)", COMPLEX_MAC, "kiln_gemm_complex128"},
};

const linalg_type *kiln_linalg_type(kiln_dtype dtype) {
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (types[i].dtype == dtype) return &types[i];
  return NULL;
}

static int is_identifier_char(char c) {
  return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* The multiply-add the kernel calls, then the template with its
 * placeholders (whole identifiers) replaced. */
static kiln_status gemm_source(void *data, kiln_strbuf *out) {
  const linalg_type *type = data;
  char mac[64];
  snprintf(mac, sizeof mac, "%s_mac", type->entry);
  kiln_strbuf_appendf(out, "KILN_DEVICE %s %s(%s c, %s a, %s b) { %s }\n", type->compute_type,
                      mac, type->compute_type, type->compute_type, type->compute_type,
                      type->mac_body);
  const char *names[] = {"GEMM_T",    "GEMM_C",   "GEMM_LOAD", "GEMM_STORE",
                         "GEMM_ZERO", "GEMM_MAC", "GEMM_ENTRY"};
  const char *values[] = {type->kernel_type, type->compute_type, type->load, type->store,
                          type->zero,        mac,                type->entry};
  const char *s = kiln_builtin_gemm;
  while (*s) {
    size_t i = 0, n = 0;
    if (strncmp(s, "GEMM_", 5) == 0)
      for (; i < sizeof names / sizeof names[0]; i++) {
        n = strlen(names[i]);
        if (strncmp(s, names[i], n) == 0 && !is_identifier_char(s[n])) break;
      }
    if (strncmp(s, "GEMM_", 5) == 0 && i < sizeof names / sizeof names[0]) {
      kiln_strbuf_append(out, values[i]);
      s += n;
    } else {
      /* copy up to the next possible placeholder */
      const char *next = strchr(s + 1, 'G');
      size_t len = next ? (size_t)(next - s) : strlen(s);
      kiln_strbuf_append_n(out, s, len);
      s += len;
    }
  }
  return kiln_strbuf_status(out);
}

kiln_status kiln_gemm_portable(kiln_context *ctx, kiln_stream *stream, const linalg_plan *plan,
                               const linalg_call *call) {
  char key[64];
  int key_length = snprintf(key, sizeof key, "\1linalg:%s", plan->type->entry);
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_program_get_keyed(ctx, key, (size_t)key_length, NULL,
                                              plan->type->entry, gemm_source,
                                              (void *)plan->type, &program));
  if (program->max_work_group_size < GEMM_GROUP * GEMM_GROUP)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "matmul: the portable kernel needs work-groups of %d work-items; "
                          "%s (%s) allows %llu for it",
                          GEMM_GROUP * GEMM_GROUP, ctx->info.name, ctx->ops->name,
                          (unsigned long long)program->max_work_group_size);
  const linalg_matrix *x[3] = {&plan->a, &plan->b, &plan->c};
  int64_t values[3][4];
  kiln_backend_arg args[19];
  for (int i = 0; i < 3; i++) {
    values[i][0] = call->offset[i];
    values[i][1] = x[i]->row;
    values[i][2] = x[i]->col;
    values[i][3] = call->stride[i];
    args[5 * i] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER, .buffer = x[i]->buffer};
    for (int j = 0; j < 4; j++)
      args[5 * i + 1 + j] = (kiln_backend_arg){
          .kind = KILN_BACKEND_ARG_SCALAR, .value = &values[i][j], .size = sizeof(int64_t)};
  }
  const int64_t sizes[4] = {plan->m, plan->n, plan->k, call->batch};
  for (int j = 0; j < 4; j++)
    args[15 + j] = (kiln_backend_arg){
        .kind = KILN_BACKEND_ARG_SCALAR, .value = &sizes[j], .size = sizeof(int64_t)};
  kiln_backend_launch launch = {.work_dim = 3, .local = {GEMM_GROUP, GEMM_GROUP, 1}};
  launch.global[0] = (uint64_t)((plan->m + GEMM_TILE - 1) / GEMM_TILE) * GEMM_GROUP;
  launch.global[1] = (uint64_t)((plan->n + GEMM_TILE - 1) / GEMM_TILE) * GEMM_GROUP;
  const int64_t max_z = ctx->info.type == KILN_DEVICE_CPU ? GEMM_MAX_GROUPS_Z_CPU : GEMM_MAX_GROUPS_Z;
  launch.global[2] = (uint64_t)(call->batch < max_z ? call->batch : max_z);
  return kiln_program_launch(ctx, program, stream, &launch, 19, args);
}

kiln_status kiln_gemm_catalog_add(kiln_catalog *catalog) {
  kiln_strbuf source = {0};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) gemm_source((void *)&types[i], &source);
  kiln_status status = kiln_strbuf_status(&source);
  if (status == KILN_OK)
    status = kiln_catalog_add(catalog, "linalg gemm (every dtype)", kiln_strbuf_text(&source));
  kiln_strbuf_free(&source);
  return status;
}
