/* core/catalog/generated_kernels.c */
#include "core/catalog/generated_kernels.h"
#include "core/codegen/elementwise.h"
#include "core/fusion/fusion_internal.h"
#include "core/fft/fft_internal.h"
#include "core/gufunc/gufunc_internal.h"
#include "core/linalg/linalg_internal.h"
#include "core/random/random_internal.h"
#include "core/reduce/reduce_catalog.h"
#include "core/sort/sort_internal.h"
#include "core/sort/indexing_internal.h"
#include "core/ufunc/ufunc_internal.h"

typedef kiln_status (*family_adder)(kiln_catalog *catalog);

static const family_adder families[] = {
    kiln_ew_catalog_add,
    kiln_gemm_catalog_add,
    kiln_ufunc_catalog_add,
    kiln_gufunc_catalog_add,
    kiln_reduce_catalog_add,
    kiln_random_catalog_add,
    kiln_fusion_catalog_add,
    kiln_sort_catalog_add,
    kiln_indexing_catalog_add,
    kiln_fft_catalog_add,
    kiln_fft_fused_catalog_add,
    kiln_random_shuffle_catalog_add,
};

kiln_status kiln_catalog_add_builtins(kiln_catalog *catalog) {
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
    KILN_RETURN_IF_ERROR(families[i](catalog));
  return KILN_OK;
}
