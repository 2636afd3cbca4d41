/* core/reduce/reduce_catalog.h: the reduction family of the kernel catalog
 * (internal; core/catalog/generated_kernels.c lists the families). */
#ifndef KILN_CORE_REDUCE_CATALOG_H
#define KILN_CORE_REDUCE_CATALOG_H

#include "core/kernel/kernel_catalog.h"

/* Appends the reduction, arg-reduction, scan and compaction kernels (see
 * reduce_catalog.c) to catalog. */
kiln_status kiln_reduce_catalog_add(kiln_catalog *catalog);

#endif
