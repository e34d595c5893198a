#include "emboss_support.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__GLIBC__)
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* The heap's next 64 MiB in one step, backed by 2 MiB pages where the kernel has them
   (transparent huge pages in "madvise" mode, as glibc.malloc.hugetlb=1 asks for them): a
   render's large blocks then fault a page per 2 MiB instead of per 4 KiB (case C: 7600
   faults -> 1600). The heap grows past the 64 MiB with ordinary pages. */
static void emboss_huge_heap(void) {
  const size_t huge = 2u << 20;
  const size_t reserve = 64u << 20;
  mallopt(M_TOP_PAD, (int)reserve);
  /* A block the heap's top cannot hold makes glibc extend the heap by it and the pad. */
  void *block = malloc(256u << 10);
  uintptr_t top = (uintptr_t)sbrk(0);
  free(block);
  mallopt(M_TOP_PAD, 128 << 10); /* glibc's default again: later growth as before */
  if (block == NULL || top == (uintptr_t)-1) return;
  uintptr_t start = ((uintptr_t)block + huge - 1) & ~(uintptr_t)(huge - 1);
  if (start >= top) return;
  (void)madvise((void *)start, top - start, MADV_HUGEPAGE);
}
#endif

void emboss_keep_freed_memory(void) {
#if defined(__GLIBC__)
  /* Large blocks from the heap, not from mmap (32 MiB is the most glibc accepts), and no
     trimming of the heap's top, so a freed band's memory serves the next band. */
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  /* One arena for every thread: a block freed on one thread serves the next allocation on
     any other (with an arena per thread, each kept its own freed memory, and a render's
     peak held the height field's freed scratch in one arena while the composite took fresh
     pages in another). The stages allocate a few large blocks per band, so the one lock is
     not contended. */
  mallopt(M_ARENA_MAX, 1);
  emboss_huge_heap();
#endif
}

/* ---- Temporary files removed on SIGINT, SIGTERM and SIGHUP ---- */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define EMBOSS_TEMP_SLOTS 64

/* A slot is in use when its first byte is not NUL. Slots change only with the signals
   blocked (and under the mutex), so the handler never sees a half-written path. */
static char temp_paths[EMBOSS_TEMP_SLOTS][PATH_MAX];
static pthread_mutex_t temp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t temp_once = PTHREAD_ONCE_INIT;
static const int temp_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void temp_on_signal(int signal_number) {
  for (int i = 0; i < EMBOSS_TEMP_SLOTS; i++) {
    if (temp_paths[i][0] != '\0') unlink(temp_paths[i]); /* async-signal-safe */
  }
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal_number, &fallback, NULL);
  raise(signal_number); /* delivered when the handler returns */
}

static void temp_install(void) {
  for (size_t i = 0; i < sizeof temp_signals / sizeof temp_signals[0]; i++) {
    struct sigaction current;
    if (sigaction(temp_signals[i], NULL, &current) != 0) continue;
    if (current.sa_handler == SIG_IGN) continue; /* nohup and friends keep ignoring it */
    struct sigaction handler;
    memset(&handler, 0, sizeof handler);
    handler.sa_handler = temp_on_signal;
    sigemptyset(&handler.sa_mask);
    for (size_t j = 0; j < sizeof temp_signals / sizeof temp_signals[0]; j++) {
      sigaddset(&handler.sa_mask, temp_signals[j]);
    }
    sigaction(temp_signals[i], &handler, NULL);
  }
}

static void temp_block(sigset_t *saved) {
  sigset_t blocked;
  sigemptyset(&blocked);
  for (size_t i = 0; i < sizeof temp_signals / sizeof temp_signals[0]; i++) sigaddset(&blocked, temp_signals[i]);
  pthread_sigmask(SIG_BLOCK, &blocked, saved);
  pthread_mutex_lock(&temp_lock);
}

static void temp_unblock(const sigset_t *saved) {
  pthread_mutex_unlock(&temp_lock);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static void temp_forget_locked(const char *temp) {
  for (int i = 0; i < EMBOSS_TEMP_SLOTS; i++) {
    if (temp_paths[i][0] != '\0' && strcmp(temp_paths[i], temp) == 0) {
      temp_paths[i][0] = '\0';
      return;
    }
  }
}

int emboss_temp_create(const char *directory, const char *name, char *path_out, size_t path_size) {
  pthread_once(&temp_once, temp_install);
  for (int attempt = 0; attempt < 100; attempt++) {
    unsigned char random_bytes[12];
    size_t got = 0;
    while (got < sizeof random_bytes) {
      ssize_t n = getrandom(random_bytes + got, sizeof random_bytes - got, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        return -1;
      }
      got += (size_t)n;
    }
    char suffix[sizeof random_bytes * 2 + 1];
    for (size_t i = 0; i < sizeof random_bytes; i++) snprintf(suffix + 2 * i, 3, "%02x", random_bytes[i]);
    int length = snprintf(path_out, path_size, "%s/.%s.%s.tmp", directory, name, suffix);
    if (length < 0 || (size_t)length >= path_size || (size_t)length >= PATH_MAX) {
      errno = ENAMETOOLONG;
      return -1;
    }
    sigset_t saved;
    temp_block(&saved);
    int slot = -1;
    for (int i = 0; i < EMBOSS_TEMP_SLOTS && slot < 0; i++) {
      if (temp_paths[i][0] == '\0') slot = i;
    }
    if (slot < 0) {
      temp_unblock(&saved);
      errno = EMFILE;
      return -1;
    }
    int fd = open(path_out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) memcpy(temp_paths[slot], path_out, (size_t)length + 1);
    int saved_errno = errno;
    temp_unblock(&saved);
    if (fd >= 0) return fd;
    errno = saved_errno;
    if (errno != EEXIST) return -1;
  }
  errno = EEXIST;
  return -1;
}

int emboss_temp_commit(const char *temp, const char *target) {
  sigset_t saved;
  temp_block(&saved);
  int result = rename(temp, target);
  int saved_errno = errno;
  if (result == 0) temp_forget_locked(temp);
  temp_unblock(&saved);
  errno = saved_errno;
  return result;
}

void emboss_temp_discard(const char *temp) {
  sigset_t saved;
  temp_block(&saved);
  unlink(temp);
  temp_forget_locked(temp);
  temp_unblock(&saved);
}

static void temp_leave_signals(void) {}

void emboss_temp_leave_signals(void) { pthread_once(&temp_once, temp_leave_signals); }

void emboss_temp_discard_all(void) {
  sigset_t saved;
  temp_block(&saved);
  for (int i = 0; i < EMBOSS_TEMP_SLOTS; i++) {
    if (temp_paths[i][0] != '\0') {
      unlink(temp_paths[i]);
      temp_paths[i][0] = '\0';
    }
  }
  temp_unblock(&saved);
}

/* ---- The terminal's width ---- */

#include <sys/ioctl.h>

int emboss_terminal_columns(int fd) {
  struct winsize size;
  if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}
