/* core/runtime/stderr_quiet.h: keeps a compiler that runs inside the process
 * (PoCL's clang) from printing on the process's stderr unless KILN_LOG asks.
 *
 * clang ends a compile with diagnostics by writing "2 errors generated." to
 * its own stream on file descriptor 2; PoCL refuses the clang option that
 * turns it off, and kiln already returns the full log in the status
 * message. Between begin and end, fd 2 points at a temporary file; at the
 * last end it points back and every line written meanwhile, by any thread,
 * is written to it again, except clang's summary lines ("N errors
 * generated.", "N warnings generated.", "N warnings and N errors
 * generated."). Other threads' output is delayed, never lost. Nested and
 * concurrent begin/end pairs share one capture. Nothing is captured when
 * KILN_LOG is debug, or when the temporary file cannot be made (never an
 * error: the line is then printed, as without kiln's help). */
#ifndef KILN_CORE_STDERR_QUIET_H
#define KILN_CORE_STDERR_QUIET_H

void kiln_stderr_quiet_begin(void);
void kiln_stderr_quiet_end(void);

#endif
