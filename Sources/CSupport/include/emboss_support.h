#ifndef EMBOSS_SUPPORT_H
#define EMBOSS_SUPPORT_H

/// Asks glibc's allocator to keep freed memory for reuse instead of returning it to the
/// kernel: a render allocates and frees large per-stage buffers, and each fresh page costs a
/// fault and a zeroing (a sixth of a typical render's time). Does nothing on other C libraries.
void emboss_keep_freed_memory(void);

#include <stddef.h>

/// Temporary files for atomic replacement, removed when the process is ended by SIGINT,
/// SIGTERM or SIGHUP (the handlers are installed on first use, only for signals not already
/// ignored; the signal is then re-raised, so the exit status still tells it).

/// Creates an empty file named `directory/.NAME.RANDOM.tmp` exclusively (O_EXCL|O_NOFOLLOW,
/// 96 random bits from getrandom, mode 0600) and registers it for removal. Returns the open
/// descriptor and writes the path into `path_out`, or -1 with errno set.
int emboss_temp_create(const char *directory, const char *name, char *path_out, size_t path_size);

/// Renames the registered temporary file over `target` and forgets it, with the signals
/// blocked between the two so an interruption never removes a file that is now `target`.
/// Returns 0, or -1 with errno set (the file stays registered).
int emboss_temp_commit(const char *temp, const char *target);

/// Removes the registered temporary file and forgets it.
void emboss_temp_discard(const char *temp);

/// For a process that handles SIGINT, SIGTERM and SIGHUP itself (a server that stops
/// cleanly): the temporary files' handlers are never installed. It must call
/// `emboss_temp_discard_all` before it exits.
void emboss_temp_leave_signals(void);

/// Removes every registered temporary file.
void emboss_temp_discard_all(void);

/// The width in columns of the terminal `fd` is, or 0 when it is not a terminal or does not
/// say.
int emboss_terminal_columns(int fd);

/// Four floats, each truncated toward zero to a 32-bit integer, at once (x86-64's cvttps2dq).
/// For values known to lie in the integers' range (clamped first): Swift converts lane by
/// lane, testing each for NaN and overflow.
typedef float emboss_float4 __attribute__((ext_vector_type(4)));
typedef int emboss_int4 __attribute__((ext_vector_type(4)));
static inline emboss_int4 emboss_truncate4(emboss_float4 v) {
  return __builtin_convertvector(v, emboss_int4);
}

#endif
