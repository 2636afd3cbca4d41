/* core/catalog/generated_kernels.h: every family of kernels kiln generates
 * (internal). This is the top of core/: it alone knows every generator, so
 * no generator has to know another. A new kind of generated kernel adds
 * its family here. */
#ifndef KILN_CORE_CATALOG_GENERATED_KERNELS_H
#define KILN_CORE_CATALOG_GENERATED_KERNELS_H

#include "core/kernel/kernel_catalog.h"

/* Appends every built-in kernel family: fill for every dtype, copy/cast for
 * every dtype pair, each in its contiguous and strided variants, and the
 * built-in ufuncs with user-style ufuncs, and the portable GEMM kernel of
 * matrix products (core/linalg). */
kiln_status kiln_catalog_add_builtins(kiln_catalog *catalog);

#endif
