#include "emboss_support.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void emboss_keep_freed_memory(void) {
#if defined(__GLIBC__)
  /* Large blocks from the heap, not from mmap (32 MiB is the most glibc accepts), and no
     trimming of the heap's top, so a freed band's memory serves the next band. */
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}
