/* kiln/status.h: status codes and the thread-local error detail.
 *
 * Every kiln call that can fail returns a kiln_status. KILN_OK is zero; any
 * other value is a failure whose human-readable detail (which call, which
 * vendor error, which library path, the compiler log...) is available from
 * kiln_last_error() on the same thread until the next failing kiln call. */
#ifndef KILN_STATUS_H
#define KILN_STATUS_H

/* Marks the public API: exported from libkiln.so (everything else is
 * hidden). */
#if defined(KILN_BUILDING_LIBRARY) && defined(__GNUC__)
#define KILN_API __attribute__((visibility("default")))
#else
#define KILN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kiln_status {
  KILN_OK = 0,
  KILN_ERROR_INVALID_ARGUMENT,   /* bad pointer, dtype, shape, signature... */
  KILN_ERROR_NOT_FOUND,          /* no such backend, device, entry point */
  KILN_ERROR_UNAVAILABLE,        /* driver/library missing or no device */
  KILN_ERROR_UNIMPLEMENTED,      /* valid request the backend cannot do */
  KILN_ERROR_OUT_OF_MEMORY,      /* device or host allocation failed */
  KILN_ERROR_OUT_OF_RANGE,       /* sizes/indices overflow or out of bounds */
  KILN_ERROR_COMPILE,            /* kernel source failed to compile */
  KILN_ERROR_DEVICE,             /* a vendor call failed at run time */
  KILN_ERROR_INTERNAL            /* a kiln bug: please report it */
} kiln_status;

/* Returns a static, never-NULL name for a status ("KILN_OK", ...). */
KILN_API const char *kiln_status_string(kiln_status status);

/* Returns the detail of the most recent failed kiln call on the calling
 * thread ("" if none has failed). The string is owned by kiln and valid
 * until the next failing kiln call on this thread (a call that succeeds does
 * not clear it). */
KILN_API const char *kiln_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
