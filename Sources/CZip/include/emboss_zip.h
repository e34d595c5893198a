#ifndef EMBOSS_ZIP_H
#define EMBOSS_ZIP_H

#include <stddef.h>
#include <time.h>

/// One entry of a zip archive: its name (UTF-8) and contents.
typedef struct {
  const char *name;
  const void *data;
  size_t size;
} emboss_zip_entry;

/// A zip archive of `entries` made in memory by libzip: each entry deflated (level 6) and
/// dated `mtime`, in the order given. libzip is loaded on the first call (`dlopen`), not
/// at start-up: only a 3MF package needs it, and it brings libcrypto with it, which cost
/// every command about 0.6 ms and 2 MiB to load.
///
/// Returns 0 with the archive in `*out` (`*out_size` bytes, to be freed with `free`); else
/// non-zero with a message in `err`.
int emboss_zip_make(const emboss_zip_entry *entries, size_t count, time_t mtime,
                    unsigned char **out, size_t *out_size, char *err, size_t err_len);

#endif
