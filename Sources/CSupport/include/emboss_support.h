#ifndef EMBOSS_SUPPORT_H
#define EMBOSS_SUPPORT_H

/// Asks glibc's allocator to keep freed memory for reuse instead of returning it to the
/// kernel: a render allocates and frees large per-stage buffers, and each fresh page costs a
/// fault and a zeroing (a sixth of a typical render's time). Does nothing on other C libraries.
void emboss_keep_freed_memory(void);

#endif
