#include "emboss_zip.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

/* libzip's functions, found once in the library loaded on first use. */
static struct {
  __typeof__(zip_error_init) *error_init;
  __typeof__(zip_error_fini) *error_fini;
  __typeof__(zip_error_strerror) *error_strerror;
  __typeof__(zip_source_buffer_create) *source_buffer_create;
  __typeof__(zip_source_keep) *source_keep;
  __typeof__(zip_source_free) *source_free;
  __typeof__(zip_open_from_source) *open_from_source;
  __typeof__(zip_source_buffer) *source_buffer;
  __typeof__(zip_file_add) *file_add;
  __typeof__(zip_set_file_compression) *set_file_compression;
  __typeof__(zip_file_set_mtime) *file_set_mtime;
  __typeof__(zip_close) *close;
  __typeof__(zip_discard) *discard;
  __typeof__(zip_get_error) *get_error;
  __typeof__(zip_source_open) *source_open;
  __typeof__(zip_source_read) *source_read;
  __typeof__(zip_source_close) *source_close;
} lib;
static char load_error[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *handle = dlopen("libzip.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!handle) handle = dlopen("libzip.so", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    snprintf(load_error, sizeof load_error, "cannot load libzip (libzip.so.4): %s",
             why ? why : "not found");
    return;
  }
#define FIND(field, symbol)                                                                  \
  do {                                                                                       \
    *(void **)&lib.field = dlsym(handle, #symbol);                                           \
    if (!lib.field) {                                                                        \
      snprintf(load_error, sizeof load_error, "libzip has no %s", #symbol);                  \
      return;                                                                                \
    }                                                                                        \
  } while (0)
  FIND(error_init, zip_error_init);
  FIND(error_fini, zip_error_fini);
  FIND(error_strerror, zip_error_strerror);
  FIND(source_buffer_create, zip_source_buffer_create);
  FIND(source_keep, zip_source_keep);
  FIND(source_free, zip_source_free);
  FIND(open_from_source, zip_open_from_source);
  FIND(source_buffer, zip_source_buffer);
  FIND(file_add, zip_file_add);
  FIND(set_file_compression, zip_set_file_compression);
  FIND(file_set_mtime, zip_file_set_mtime);
  FIND(close, zip_close);
  FIND(discard, zip_discard);
  FIND(get_error, zip_get_error);
  FIND(source_open, zip_source_open);
  FIND(source_read, zip_source_read);
  FIND(source_close, zip_source_close);
#undef FIND
}

static void set_error(char *err, size_t err_len, const char *what, const char *why) {
  if (err && err_len > 0) snprintf(err, err_len, "%s%s%s", what, why ? ": " : "", why ? why : "");
}

int emboss_zip_make(const emboss_zip_entry *entries, size_t count, time_t mtime,
                    unsigned char **out, size_t *out_size, char *err, size_t err_len) {
  *out = NULL;
  *out_size = 0;
  pthread_once(&load_once, load);
  if (load_error[0] != '\0') {
    set_error(err, err_len, load_error, NULL);
    return 1;
  }
  zip_error_t error;
  lib.error_init(&error);
  zip_source_t *source = lib.source_buffer_create(NULL, 0, 0, &error);
  if (!source) {
    set_error(err, err_len, "libzip", lib.error_strerror(&error));
    lib.error_fini(&error);
    return 1;
  }
  /* The archive owns the source until it is closed; kept, it outlives the close so its
     bytes can be read back. */
  lib.source_keep(source);
  zip_t *archive = lib.open_from_source(source, ZIP_TRUNCATE, &error);
  if (!archive) {
    set_error(err, err_len, "libzip", lib.error_strerror(&error));
    lib.error_fini(&error);
    lib.source_free(source);
    return 1;
  }
  lib.error_fini(&error);
  for (size_t i = 0; i < count; i++) {
    /* libzip reads an entry's buffer when the archive is closed, and frees it then. */
    void *copy = malloc(entries[i].size > 0 ? entries[i].size : 1);
    if (!copy) {
      set_error(err, err_len, "out of memory", NULL);
      lib.discard(archive);
      lib.source_free(source);
      return 1;
    }
    if (entries[i].size > 0) memcpy(copy, entries[i].data, entries[i].size);
    zip_source_t *entry = lib.source_buffer(archive, copy, entries[i].size, 1);
    if (!entry) {
      free(copy);
      set_error(err, err_len, "libzip", lib.error_strerror(lib.get_error(archive)));
      lib.discard(archive);
      lib.source_free(source);
      return 1;
    }
    zip_int64_t index = lib.file_add(archive, entries[i].name, entry, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      set_error(err, err_len, "libzip", lib.error_strerror(lib.get_error(archive)));
      lib.source_free(entry);
      lib.discard(archive);
      lib.source_free(source);
      return 1;
    }
    lib.set_file_compression(archive, (zip_uint64_t)index, ZIP_CM_DEFLATE, 6);
    lib.file_set_mtime(archive, (zip_uint64_t)index, mtime, 0);
  }
  if (lib.close(archive) != 0) {
    set_error(err, err_len, "libzip", lib.error_strerror(lib.get_error(archive)));
    lib.discard(archive);
    lib.source_free(source);
    return 1;
  }
  if (lib.source_open(source) != 0) {
    set_error(err, err_len, "libzip", "cannot read the archive back");
    lib.source_free(source);
    return 1;
  }
  size_t capacity = 1 << 16, size = 0;
  unsigned char *bytes = malloc(capacity);
  int status = bytes ? 0 : 1;
  while (status == 0) {
    if (size == capacity) {
      unsigned char *grown = realloc(bytes, capacity * 2);
      if (!grown) {
        status = 1;
        break;
      }
      bytes = grown;
      capacity *= 2;
    }
    zip_int64_t read = lib.source_read(source, bytes + size, capacity - size);
    if (read < 0) status = 1;
    if (read <= 0) break;
    size += (size_t)read;
  }
  lib.source_close(source);
  lib.source_free(source);
  if (status != 0) {
    free(bytes);
    set_error(err, err_len, "libzip", "cannot read the archive back (out of memory)");
    return 1;
  }
  *out = bytes;
  *out_size = size;
  return 0;
}
