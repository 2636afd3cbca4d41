/* core/fusion/fusion_counters.c: the counts of what fusion did in this
 * process (tests read them: kiln_fusion_counters_get). Their own file
 * because recording (fusion_record.c), fused kernels (fusion_kernel.c) and
 * folds (fusion_fold.c) all add to them, and fusion_record.c calls the fold:
 * kept in fusion_record.c they made a call circle (docs/architecture.md). */
#include <stdatomic.h>

#include "core/fusion/fusion_internal.h"

static atomic_uint_fast64_t counters[8];

void kiln_fusion_count_recorded(void) { atomic_fetch_add(&counters[0], 1); }

void kiln_fusion_count_fold(uint64_t nodes) {
  atomic_fetch_add(&counters[6], 1);
  atomic_fetch_add(&counters[7], nodes);
}

void kiln_fusion_count(uint64_t kernels, uint64_t fused, uint64_t unfused, uint64_t stored,
                       uint64_t kept) {
  atomic_fetch_add(&counters[1], kernels);
  atomic_fetch_add(&counters[2], fused);
  atomic_fetch_add(&counters[3], unfused);
  atomic_fetch_add(&counters[4], stored);
  atomic_fetch_add(&counters[5], kept);
}

void kiln_fusion_counters_get(kiln_fusion_counters *out) {
  out->recorded = atomic_load(&counters[0]);
  out->kernels = atomic_load(&counters[1]);
  out->fused = atomic_load(&counters[2]);
  out->unfused = atomic_load(&counters[3]);
  out->stored = atomic_load(&counters[4]);
  out->kept = atomic_load(&counters[5]);
  out->folds = atomic_load(&counters[6]);
  out->folded = atomic_load(&counters[7]);
}
