/* core/runtime/stderr_quiet.c: see stderr_quiet.h. */
#include "core/runtime/stderr_quiet.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/runtime/log.h"

static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;
static int quiet_depth;         /* begin calls not yet ended */
static int quiet_saved_fd = -1; /* the real stderr while capturing, else -1 */
static FILE *quiet_capture;     /* where fd 2 points while capturing */

/* Nonzero for clang's closing count: "<n> error(s)|warning(s)[ and <n>
 * error(s)] generated." */
static int is_clang_summary(const char *line, size_t length) {
  static const char tail[] = " generated.";
  size_t tail_length = sizeof tail - 1;
  if (length > 0 && line[length - 1] == '\n') length--;
  if (length <= tail_length || memcmp(line + length - tail_length, tail, tail_length) != 0)
    return 0;
  size_t i = 0;
  for (int part = 0; part < 2; part++) {
    size_t digits = i;
    while (i < length && line[i] >= '0' && line[i] <= '9') i++;
    if (i == digits) return 0;
    if (length - i >= 9 && memcmp(line + i, " warnings", 9) == 0) i += 9;
    else if (length - i >= 8 && memcmp(line + i, " warning", 8) == 0) i += 8;
    else if (length - i >= 7 && memcmp(line + i, " errors", 7) == 0) i += 7;
    else if (length - i >= 6 && memcmp(line + i, " error", 6) == 0) i += 6;
    else return 0;
    if (length - i >= 5 && memcmp(line + i, " and ", 5) == 0) {
      i += 5;
      continue;
    }
    break;
  }
  return i + tail_length == length;
}

static void write_all(int fd, const char *data, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    length -= (size_t)n;
  }
}

void kiln_stderr_quiet_begin(void) {
  pthread_mutex_lock(&quiet_lock);
  if (quiet_depth++ == 0 && !kiln_log_enabled(KILN_LOG_DEBUG)) {
    FILE *capture = tmpfile();
    if (capture) {
      fflush(stderr);
      int saved = dup(STDERR_FILENO);
      if (saved >= 0 && dup2(fileno(capture), STDERR_FILENO) >= 0) {
        quiet_saved_fd = saved;
        quiet_capture = capture;
      } else {
        if (saved >= 0) close(saved);
        fclose(capture);
      }
    }
  }
  pthread_mutex_unlock(&quiet_lock);
}

void kiln_stderr_quiet_end(void) {
  pthread_mutex_lock(&quiet_lock);
  if (quiet_depth > 0 && --quiet_depth == 0 && quiet_capture) {
    fflush(stderr);
    dup2(quiet_saved_fd, STDERR_FILENO);
    close(quiet_saved_fd);
    quiet_saved_fd = -1;
    /* what others wrote meanwhile goes out now, in its order */
    rewind(quiet_capture);
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, quiet_capture)) > 0)
      if (!is_clang_summary(line, (size_t)length))
        write_all(STDERR_FILENO, line, (size_t)length);
    free(line);
    fclose(quiet_capture);
    quiet_capture = NULL;
  }
  pthread_mutex_unlock(&quiet_lock);
}
