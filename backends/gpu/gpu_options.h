/* backends/gpu/gpu_options.h: turning a user's compiler options string into
 * the argument vector NVRTC and hiprtc take (internal). */
#ifndef KILN_BACKENDS_GPU_OPTIONS_H
#define KILN_BACKENDS_GPU_OPTIONS_H

#include "kiln/status.h"

/* Splits options (may be NULL or empty) at unquoted whitespace, as a shell
 * would for simple cases: '...' is literal, "..." honours \" and \\, and a
 * backslash outside quotes escapes the next character. *words receives a
 * NULL-terminated array whose strings live in the same allocation (one
 * free(*words) releases all; never NULL on success) and *count its length.
 * INVALID_ARGUMENT for an unterminated quote, OUT_OF_MEMORY. */
kiln_status gpu_options_split(const char *options, char ***words, int *count);

#endif
