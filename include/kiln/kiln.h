/* kiln.h: the umbrella header of kiln, a C11 library for numeric kernels
 * written once and run on CUDA, HIP or OpenCL devices chosen at run time. */
#ifndef KILN_H
#define KILN_H

#include "kiln/status.h"
#include "kiln/dtype.h"
#include "kiln/context.h"
#include "kiln/array.h"
#include "kiln/stream.h"
#include "kiln/memory.h"
#include "kiln/kernel.h"
#include "kiln/ufunc.h"
#include "kiln/gufunc.h"
#include "kiln/reduce.h"
#include "kiln/random.h"
#include "kiln/interop.h"
#include "kiln/linalg.h"
#include "kiln/stats.h"
#include "kiln/fft.h"
#include "kiln/sort.h"
#include "kiln/search.h"
#include "kiln/indexing.h"
#include "kiln/fusion.h"
#include "kiln/creation.h"

#define KILN_VERSION_MAJOR 0
#define KILN_VERSION_MINOR 1
#define KILN_VERSION_PATCH 0

#endif
