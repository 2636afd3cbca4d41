/* core/fusion/fusion_catalog.c: sample fused kernels for the compile-check
 * catalog (kernel_catalog.h), so that CI builds the fused form with NVRTC
 * and hiprtc too: the hidden layer (a scalar, a register between built-ins
 * and a user ufunc with a returned value), and a float16 chain with a
 * two-output user ufunc (the store-and-load rounding of kept halves), each
 * contiguous and strided. Groups are built by hand from unbound ufuncs: no
 * context, no arrays. */
#include <stdio.h>
#include <string.h>

#include "core/fusion/fusion_internal.h"

/* The signature of u whose operands are all of dtype d; -1 when none. */
static int signature_of(const kiln_ufunc *u, kiln_dtype d) {
  for (int s = 0; s < u->nsig; s++) {
    int all = 1;
    for (int j = 0; j < u->nin + u->nout; j++) all &= u->sigs[s].dtypes[j] == d;
    if (all) return s;
  }
  return -1;
}

/* An empty group over `nodes` with two external inputs of dtype d and
 * nscalars scalars of d. */
static void start_group(kiln_fusion_group *g, kiln_fusion_node *nodes, kiln_dtype d,
                        int nscalars) {
  memset(g, 0, sizeof *g);
  g->nodes = nodes;
  g->inputs[0].dtype = g->inputs[1].dtype = d;
  g->ninputs = 2;
  for (int s = 0; s < nscalars; s++) g->scalar_dtypes[s] = d;
  g->nscalars = nscalars;
}

/* Appends node (u, inputs) with fresh outputs of dtype d to g. */
static void add_node(kiln_fusion_group *g, kiln_fusion_node *storage, kiln_ufunc *u,
                     kiln_dtype d, const kiln_fusion_input *inputs) {
  kiln_fusion_node *node = &storage[g->nnodes++];
  memset(node, 0, sizeof *node);
  node->ufunc = u;
  node->signature = signature_of(u, d);
  for (int j = 0; j < u->nin; j++) node->inputs[j] = inputs[j];
  for (int k = 0; k < u->nout; k++) {
    g->producer[g->noutputs] = g->nnodes - 1;
    g->outputs[g->noutputs].dtype = d;
    node->outputs[k] = g->noutputs++;
  }
}

static kiln_status add_group(kiln_catalog *c, const kiln_fusion_group *g, const int *held,
                             const char *what) {
  for (int n = 0; n < g->nnodes; n++)
    if (g->nodes[n].signature < 0)
      return kiln_error_set(KILN_ERROR_INTERNAL, "fused %s: ufunc '%s' has no such signature",
                            what, g->nodes[n].ufunc->name);
  kiln_status status = KILN_OK;
  for (int ndim = 0; ndim <= 2 && status == KILN_OK; ndim += 2) {
    kiln_strbuf source = {0};
    status = kiln_fusion_group_source(g, held, ndim, &source);
    char name[160];
    snprintf(name, sizeof name, "fused %s, %s", what, ndim ? "strided (2 dims)" : "contiguous");
    if (status == KILN_OK) status = kiln_catalog_add(c, name, source.data);
    kiln_strbuf_free(&source);
  }
  return status;
}

kiln_status kiln_fusion_catalog_add(kiln_catalog *c) {
  static const char *const act_sigs[] = {"float32(float32 value)"};
  static const char *const act_bodies[] = {
      "return (exp(value) - exp(-value)) / (exp(value) + exp(-value));"};
  static const char *const split_sigs[] = {"(float16 lo, float16 hi)(float16 x)"};
  static const char *const split_bodies[] = {"lo = floor(x); hi = x - lo;"};
  kiln_ufunc *divide = NULL, *multiply = NULL, *act = NULL, *add = NULL, *split = NULL;
  kiln_status status = kiln_ufunc_builtin_make(NULL, "divide", &divide);
  if (status == KILN_OK) status = kiln_ufunc_builtin_make(NULL, "multiply", &multiply);
  if (status == KILN_OK) status = kiln_ufunc_builtin_make(NULL, "add", &add);
  if (status == KILN_OK)
    status = kiln_ufunc_create_with_bodies(NULL, "activate", 1, act_sigs, act_bodies,
                                           "KILN_DEVICE float unused_helper(float v) { return v; }",
                                           &act);
  if (status == KILN_OK)
    status = kiln_ufunc_create_with_bodies(NULL, "split_half", 1, split_sigs, split_bodies, NULL,
                                           &split);
  kiln_fusion_node nodes[4];
  if (status == KILN_OK) {
    /* hidden layer: (g / 255) * w, then activate; only the last written */
    kiln_fusion_group g;
    start_group(&g, nodes, KILN_FLOAT32, 1);
    add_node(&g, nodes, divide, KILN_FLOAT32,
             (kiln_fusion_input[]){{KILN_FUSION_EXTERNAL, 0}, {KILN_FUSION_SCALAR, 0}});
    add_node(&g, nodes, multiply, KILN_FLOAT32,
             (kiln_fusion_input[]){{KILN_FUSION_VALUE, 0}, {KILN_FUSION_EXTERNAL, 1}});
    add_node(&g, nodes, act, KILN_FLOAT32, (kiln_fusion_input[]){{KILN_FUSION_VALUE, 1}});
    status = add_group(c, &g, (const int[]){0, 0, 1}, "hidden layer (float32)");
  }
  if (status == KILN_OK) {
    /* float16: a + b kept, split into two written halves, then their sum */
    kiln_fusion_group g;
    start_group(&g, nodes, KILN_FLOAT16, 0);
    add_node(&g, nodes, add, KILN_FLOAT16,
             (kiln_fusion_input[]){{KILN_FUSION_EXTERNAL, 0}, {KILN_FUSION_EXTERNAL, 1}});
    add_node(&g, nodes, split, KILN_FLOAT16, (kiln_fusion_input[]){{KILN_FUSION_VALUE, 0}});
    add_node(&g, nodes, add, KILN_FLOAT16,
             (kiln_fusion_input[]){{KILN_FUSION_VALUE, 1}, {KILN_FUSION_VALUE, 2}});
    status = add_group(c, &g, (const int[]){0, 1, 1, 1}, "float16 chain with two outputs");
  }
  kiln_ufunc_release(divide);
  kiln_ufunc_release(multiply);
  kiln_ufunc_release(add);
  kiln_ufunc_release(act);
  kiln_ufunc_release(split);
  return status;
}
