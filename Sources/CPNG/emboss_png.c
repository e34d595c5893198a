#include "emboss_png.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <isa-l/igzip_lib.h>

typedef struct {
  char *err;
  size_t err_len;
} error_sink;

static void on_error(png_structp png, png_const_charp message) {
  error_sink *sink = (error_sink *)png_get_error_ptr(png);
  if (sink && sink->err && sink->err_len > 0) {
    snprintf(sink->err, sink->err_len, "%s", message);
  }
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
  (void)png;
  (void)message;
}

static void set_error(char *err, size_t err_len, const char *message) {
  if (err && err_len > 0) snprintf(err, err_len, "%s", message);
}

/* ---------- writing ---------- */

static int color_type_for(int channels) {
  switch (channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 2: return PNG_COLOR_TYPE_GRAY_ALPHA;
    case 3: return PNG_COLOR_TYPE_RGB;
    case 4: return PNG_COLOR_TYPE_RGB_ALPHA;
    default: return -1;
  }
}

static void write_to_buffer(png_structp png, png_bytep bytes, png_size_t length);
static void flush_buffer(png_structp png);

/* Everything up to the image data: IHDR, sRGB, pHYs. Called after the caller's setjmp. */
static void write_header(png_structp png, png_infop info, emboss_png_buffer *out, uint32_t width,
                         uint32_t height, int bit_depth, int color_type,
                         uint32_t pixels_per_meter, int srgb) {
  png_set_write_fn(png, out, write_to_buffer, flush_buffer);
  png_set_IHDR(png, info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (srgb) png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  if (pixels_per_meter) {
    png_set_pHYs(png, info, pixels_per_meter, pixels_per_meter, PNG_RESOLUTION_METER);
  }
  png_write_info(png, info);
}

/* A write struct and its info, errors routed to `sink`; 0 on success. */
static int create_writer(error_sink *sink, png_structp *png, png_infop *info) {
  *png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink, on_error, on_warning);
  if (!*png) {
    set_error(sink->err, sink->err_len, "cannot create PNG writer");
    return 1;
  }
  *info = png_create_info_struct(*png);
  if (!*info) {
    png_destroy_write_struct(png, NULL);
    set_error(sink->err, sink->err_len, "cannot create PNG info");
    return 1;
  }
  return 0;
}

static void write_to_buffer(png_structp png, png_bytep bytes, png_size_t length) {
  emboss_png_buffer *buffer = (emboss_png_buffer *)png_get_io_ptr(png);
  if (buffer->size + length > buffer->capacity) {
    size_t capacity = buffer->capacity ? buffer->capacity : 65536;
    while (capacity < buffer->size + length) capacity *= 2;
    unsigned char *grown = (unsigned char *)realloc(buffer->data, capacity);
    if (!grown) png_error(png, "out of memory while encoding PNG");
    buffer->data = grown;
    buffer->capacity = capacity;
  }
  memcpy(buffer->data + buffer->size, bytes, length);
  buffer->size += length;
}

static void flush_buffer(png_structp png) { (void)png; }

void emboss_png_buffer_free(emboss_png_buffer *buffer) {
  if (!buffer) return;
  free(buffer->data);
  buffer->data = NULL;
  buffer->size = 0;
  buffer->capacity = 0;
}

int emboss_png_encode(const void *pixels, uint32_t width, uint32_t height, int channels,
                      int bit_depth, int compression_level, uint32_t pixels_per_meter, int srgb,
                      emboss_png_buffer *out, char *err, size_t err_len) {
  int color_type = color_type_for(channels);
  if (color_type < 0) {
    set_error(err, err_len, "unsupported channel count");
    return 1;
  }
  if (!(bit_depth == 8 || bit_depth == 16 || (bit_depth == 1 && channels == 1))) {
    set_error(err, err_len, "unsupported bit depth");
    return 1;
  }
  if (width == 0 || height == 0) {
    set_error(err, err_len, "image is empty");
    return 1;
  }
  error_sink sink = {err, err_len};
  png_structp png;
  png_infop info;
  if (create_writer(&sink, &png, &info)) return 1;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    emboss_png_buffer_free(out);
    return 1;
  }
  png_set_compression_level(png, compression_level < 0 ? 0 : (compression_level > 9 ? 9 : compression_level));
  /* The Up filter alone: on renders (large uniform backgrounds, smooth bevels) it comes within
     3% of adaptive filtering's size at half the time, and a background row filters to zeros. */
  png_set_filter(png, 0, compression_level == 0 ? PNG_FILTER_NONE : PNG_FILTER_UP);
  write_header(png, info, out, width, height, bit_depth, color_type, pixels_per_meter, srgb);
  if (bit_depth == 16) png_set_swap(png); /* PNG stores big-endian; callers hand little-endian. */
  size_t row_bytes;
  if (bit_depth == 1) {
    row_bytes = ((size_t)width + 7) / 8;
  } else {
    row_bytes = (size_t)width * (size_t)channels * (size_t)(bit_depth / 8);
  }
  const unsigned char *base = (const unsigned char *)pixels;
  for (uint32_t y = 0; y < height; y++) {
    png_write_row(png, (png_const_bytep)(base + (size_t)y * row_bytes));
  }
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return 0;
}

/* ---------- parallel-friendly writing ---------- */

/* Room for `length` more bytes; the new bytes are zeroed. */
static int buffer_reserve(emboss_png_buffer *buffer, size_t length) {
  if (buffer->size + length > buffer->capacity) {
    size_t capacity = buffer->capacity ? buffer->capacity : 65536;
    while (capacity < buffer->size + length) capacity *= 2;
    unsigned char *grown = (unsigned char *)realloc(buffer->data, capacity);
    if (!grown) return 1;
    memset(grown + buffer->capacity, 0, capacity - buffer->capacity);
    buffer->data = grown;
    buffer->capacity = capacity;
  }
  return 0;
}

static int buffer_append(emboss_png_buffer *buffer, const unsigned char *bytes, size_t length) {
  if (buffer_reserve(buffer, length)) return 1;
  memcpy(buffer->data + buffer->size, bytes, length);
  buffer->size += length;
  return 0;
}

/* A band's compressor: zlib's deflate, or ISA-L's igzip, which deflates at 6 to 10 times
 * zlib level 4's speed for a tenth or so more bytes (the caller picks: PNGCodec.fastLevels). Either
 * way each band's stream starts with an empty history and ends on a byte boundary (a full
 * flush), or ends the whole stream (the last band), so bands deflate on their own and
 * concatenate into one stream. */
struct emboss_deflate_band {
  z_stream stream;
  int zlib_flush;
  struct isal_zstream *isal; /* NULL: zlib */
  int owns_isal;             /* whether `isal` was allocated here (else the caller's) */
  unsigned char *level_buf;
  size_t row_bytes;
  size_t max_rows;
  unsigned char *filtered; /* up to max_rows rows, each after its filter byte */
  uLong adler;
  size_t filtered_size;
};

size_t emboss_igzip_stream_size(void) { return sizeof(struct isal_zstream); }

emboss_deflate_band *emboss_deflate_band_begin(int level, int igzip_level, size_t row_bytes,
                                               size_t max_rows, char *err, size_t err_len) {
  return emboss_deflate_band_begin_at(level, igzip_level, row_bytes, max_rows, NULL, err,
                                      err_len);
}

static emboss_deflate_band *begin_band(int level, int igzip_level, int strategy,
                                       size_t row_bytes, size_t max_rows, void *igzip_stream,
                                       char *err, size_t err_len);

emboss_deflate_band *emboss_deflate_band_begin_at(int level, int igzip_level, size_t row_bytes,
                                                  size_t max_rows, void *igzip_stream,
                                                  char *err, size_t err_len) {
  return begin_band(level, igzip_level, Z_DEFAULT_STRATEGY, row_bytes, max_rows, igzip_stream,
                    err, err_len);
}

emboss_deflate_band *emboss_deflate_band_begin_runs(size_t row_bytes, size_t max_rows, char *err,
                                                    size_t err_len) {
  return begin_band(9, -1, Z_RLE, row_bytes, max_rows, NULL, err, err_len);
}

static emboss_deflate_band *begin_band(int level, int igzip_level, int strategy,
                                       size_t row_bytes, size_t max_rows, void *igzip_stream,
                                       char *err, size_t err_len) {
  if (max_rows == 0) max_rows = 1;
  emboss_deflate_band *band = (emboss_deflate_band *)calloc(1, sizeof *band);
  unsigned char *filtered = (unsigned char *)malloc((row_bytes + 1) * max_rows);
  if (!band || !filtered) {
    free(band);
    free(filtered);
    set_error(err, err_len, "out of memory while encoding PNG");
    return NULL;
  }
  if (igzip_level >= 0) {
    int isal_level = igzip_level > 2 ? 2 : igzip_level;
    size_t level_size = isal_level == 0   ? ISAL_DEF_LVL0_DEFAULT
                        : isal_level == 1 ? ISAL_DEF_LVL1_DEFAULT
                                          : ISAL_DEF_LVL2_DEFAULT;
    band->owns_isal = igzip_stream == NULL;
    band->isal = igzip_stream ? (struct isal_zstream *)memset(igzip_stream, 0, sizeof *band->isal)
                              : (struct isal_zstream *)calloc(1, sizeof *band->isal);
    band->level_buf = level_size > 0 ? (unsigned char *)malloc(level_size) : NULL;
    if (!band->isal || (level_size > 0 && !band->level_buf)) {
      if (band->owns_isal) free(band->isal);
      free(band->level_buf);
      free(band);
      free(filtered);
      set_error(err, err_len, "out of memory while encoding PNG");
      return NULL;
    }
    isal_deflate_init(band->isal);
    band->isal->level = (uint32_t)isal_level;
    band->isal->level_buf = band->level_buf;
    band->isal->level_buf_size = (uint32_t)level_size;
    band->isal->gzip_flag = IGZIP_DEFLATE;
    band->isal->flush = NO_FLUSH;
  } else if (deflateInit2(&band->stream, level, Z_DEFLATED, -15, 8, strategy) != Z_OK) {
    free(band);
    free(filtered);
    set_error(err, err_len, "cannot start zlib");
    return NULL;
  }
  band->row_bytes = row_bytes;
  band->max_rows = max_rows;
  band->filtered = filtered;
  band->adler = adler32(0L, Z_NULL, 0);
  return band;
}

/* One call of the band's compressor into `chunk` (`size` bytes), its input and flush
 * already set: the bytes it wrote in `produced`, and whether it has more to do (its output
 * filled, or input left). Nonzero when the compressor fails. */
static int deflate_step(emboss_deflate_band *band, unsigned char *chunk, size_t size,
                        size_t *produced, int *pending) {
  if (band->isal) {
    struct isal_zstream *stream = band->isal;
    stream->next_out = chunk;
    stream->avail_out = (uint32_t)size;
    if (isal_deflate(stream) != COMP_OK) return 1;
    *produced = size - stream->avail_out;
    *pending = stream->avail_out == 0 || stream->avail_in > 0;
    return 0;
  }
  z_stream *stream = &band->stream;
  stream->next_out = chunk;
  stream->avail_out = (uInt)size;
  if (deflate(stream, band->zlib_flush) == Z_STREAM_ERROR) return 1;
  *produced = size - stream->avail_out;
  *pending = stream->avail_out == 0 || stream->avail_in > 0;
  return 0;
}

/* Runs the band's compressor, its input and flush already set, until it has consumed its
 * input and written what it owes, appending to `out`. */
static int deflate_all(emboss_deflate_band *band, emboss_png_buffer *out, char *err,
                       size_t err_len) {
  unsigned char chunk[65536];
  int pending = 1;
  while (pending) {
    size_t produced = 0;
    if (deflate_step(band, chunk, sizeof chunk, &produced, &pending)) {
      set_error(err, err_len, band->isal ? "igzip failed while encoding PNG"
                                         : "zlib failed while encoding PNG");
      return 1;
    }
    if (buffer_append(out, chunk, produced)) {
      set_error(err, err_len, "out of memory while encoding PNG");
      return 1;
    }
  }
  return 0;
}

/* Bytes of a band deflated on their own, before the rest, at igzip's levels 1-2: at most
 * the body's input slop under a flush (16), so the body leaves them all to the finish
 * routine, and at least 4, so that routine hashes the first one and records history. */
#define IGZIP_PRIME_BYTES 16

int emboss_deflate_band_rows(emboss_deflate_band *band, const unsigned char *rows,
                             size_t row_count, const unsigned char *previous_row, int end,
                             emboss_png_buffer *out, char *err, size_t err_len) {
  size_t row_bytes = band->row_bytes;
  if (row_count > band->max_rows) {
    set_error(err, err_len, "too many rows at once while encoding PNG");
    return 1;
  }
  unsigned char *filtered = band->filtered;
  for (size_t r = 0; r < row_count; r++) {
    const unsigned char *row = rows + r * row_bytes;
    const unsigned char *above = r > 0 ? row - row_bytes : previous_row;
    unsigned char *target = filtered + r * (row_bytes + 1);
    target[0] = above ? 2 : 0; /* Up, or None for the image's first row */
    if (above) {
      for (size_t i = 0; i < row_bytes; i++) target[i + 1] = (unsigned char)(row[i] - above[i]);
    } else {
      memcpy(target + 1, row, row_bytes);
    }
  }
  size_t size = row_count * (row_bytes + 1);
  /* ISA-L's Adler-32 (vectorized): the same checksum as zlib's. */
  band->adler = isal_adler32((uint32_t)band->adler, filtered, (uint64_t)size);
  band->filtered_size += size;
  /* `end`: 0 more rows to come, 1 the band's end (a full flush), 2 the stream's end. */
  if (band->isal) {
    size_t start = 0;
    if (band->isal->level > 0 && band->filtered_size == size && size > IGZIP_PRIME_BYTES) {
      /* ISA-L 2.30-2.32's level 1-2 body (igzip_icf_body_h1_gr_bt.asm, .write_first_byte)
       * hashes the second byte of a stream without history from a register that holds the
       * stream's address, so where a band's matches fall depended on where malloc put its
       * compressor (about 1 band in 4000 deflated differently from run to run). The band's
       * first bytes go through the finish routine instead, which hashes them right, in a
       * block of their own; after it the body has history and never takes that path. */
      band->isal->next_in = filtered;
      band->isal->avail_in = IGZIP_PRIME_BYTES;
      band->isal->flush = SYNC_FLUSH;
      band->isal->end_of_stream = 0;
      if (deflate_all(band, out, err, err_len)) return 1;
      start = IGZIP_PRIME_BYTES;
    }
    band->isal->next_in = filtered + start;
    band->isal->avail_in = (uint32_t)(size - start);
    band->isal->flush = end == 1 ? FULL_FLUSH : NO_FLUSH;
    band->isal->end_of_stream = end == 2 ? 1 : 0;
  } else {
    band->stream.next_in = filtered;
    band->stream.avail_in = (uInt)size;
    band->zlib_flush = end ? (end == 2 ? Z_FINISH : Z_FULL_FLUSH) : Z_NO_FLUSH;
  }
  return deflate_all(band, out, err, err_len);
}

void emboss_deflate_band_end(emboss_deflate_band *band, uint32_t *adler_out,
                             size_t *filtered_size_out) {
  *adler_out = (uint32_t)band->adler;
  *filtered_size_out = band->filtered_size;
  if (band->isal) {
    if (band->owns_isal) free(band->isal);
    free(band->level_buf);
  } else {
    deflateEnd(&band->stream);
  }
  free(band->filtered);
  free(band);
}

uint32_t emboss_adler32_combine(uint32_t first, uint32_t second, size_t second_size) {
  return (uint32_t)adler32_combine(first, second, (z_off_t)second_size);
}

int emboss_png_write_zlib(uint32_t width, uint32_t height, int channels, int bit_depth,
                          uint32_t pixels_per_meter, int srgb, const unsigned char *zlib_stream,
                          size_t zlib_size, emboss_png_buffer *out, char *err, size_t err_len) {
  int color_type = color_type_for(channels);
  if (color_type < 0) {
    set_error(err, err_len, "unsupported channel count");
    return 1;
  }
  error_sink sink = {err, err_len};
  png_structp png;
  png_infop info;
  if (create_writer(&sink, &png, &info)) return 1;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    emboss_png_buffer_free(out);
    return 1;
  }
  write_header(png, info, out, width, height, bit_depth, color_type, pixels_per_meter, srgb);
  static const png_byte idat[5] = "IDAT";
  static const png_byte iend[5] = "IEND";
  const size_t piece = 1u << 20;
  for (size_t offset = 0; offset < zlib_size; offset += piece) {
    size_t length = zlib_size - offset < piece ? zlib_size - offset : piece;
    png_write_chunk(png, idat, zlib_stream + offset, length);
  }
  png_write_chunk(png, iend, NULL, 0);
  png_destroy_write_struct(&png, &info);
  return 0;
}

/* ---------- reading ---------- */

typedef struct {
  const unsigned char *data;
  size_t size;
  size_t offset;
} read_cursor;

static void read_from_memory(png_structp png, png_bytep bytes, png_size_t length) {
  read_cursor *cursor = (read_cursor *)png_get_io_ptr(png);
  if (cursor->offset + length > cursor->size) png_error(png, "file is truncated");
  memcpy(bytes, cursor->data + cursor->offset, length);
  cursor->offset += length;
}

/* Limits for every reader: dimensions no larger than the pixel budget allows, no ancillary
   chunk over 8 MiB and at most 256 cached ancillary chunks (text, sPLT, unknown). libpng
   treats an over-size chunk as a "benign" error and allocates it anyway unless benign errors
   are errors: a 141-byte file whose tEXt chunk claims 2 GB would make it zero 2 GiB. */
static void limit_reader(png_structp png, uint64_t max_pixels) {
  png_uint_32 side = max_pixels > 0x7fffffffu ? 0x7fffffffu : (png_uint_32)max_pixels;
  png_set_user_limits(png, side, side);
  png_set_chunk_malloc_max(png, 8u * 1024u * 1024u);
  png_set_chunk_cache_max(png, 256);
  png_set_benign_errors(png, 0);
}

static int check_signature(const unsigned char *data, size_t size, char *err, size_t err_len) {
  if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
    set_error(err, err_len, size == 0 ? "file is empty" : "not a PNG file (bad signature)");
    return 1;
  }
  return 0;
}

int emboss_png_read_size(const unsigned char *data, size_t size, uint32_t *width_out,
                         uint32_t *height_out, char *err, size_t err_len) {
  if (check_signature(data, size, err, err_len)) return 1;
  error_sink sink = {err, err_len};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &sink, on_error, on_warning);
  if (!png) {
    set_error(err, err_len, "cannot create PNG reader");
    return 1;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, NULL, NULL);
    set_error(err, err_len, "cannot create PNG info");
    return 1;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, NULL);
    return 1;
  }
  read_cursor cursor = {data, size, 0};
  png_set_read_fn(png, &cursor, read_from_memory);
  limit_reader(png, 0x7fffffffu);
  png_read_info(png, info);
  *width_out = png_get_image_width(png, info);
  *height_out = png_get_image_height(png, info);
  png_destroy_read_struct(&png, &info, NULL);
  return 0;
}

/* Reads up to the image data from `cursor`: the size checked against max_pixels (before any
   pixel memory is allocated) and the pHYs density (0 when absent). Called after the caller's
   setjmp; errors longjmp there. */
static void read_header(png_structp png, png_infop info, read_cursor *cursor, uint64_t max_pixels,
                        uint32_t *pixels_per_meter_out) {
  png_set_read_fn(png, cursor, read_from_memory);
  limit_reader(png, max_pixels);
  png_read_info(png, info);
  png_uint_32 width = png_get_image_width(png, info);
  png_uint_32 height = png_get_image_height(png, info);
  if ((uint64_t)width * (uint64_t)height > max_pixels) {
    char message[256];
    snprintf(message, sizeof message, "image is %ux%u (%llu pixels), over the limit of %llu pixels",
             (unsigned)width, (unsigned)height,
             (unsigned long long)((uint64_t)width * height), (unsigned long long)max_pixels);
    png_error(png, message);
  }
  png_uint_32 res_x = 0, res_y = 0;
  int unit = 0;
  /* Square pixels at a resolution emboss accepts (1...100000 DPI: 40...3937008 per meter):
     non-square pixels or an absurd density are no resolution to carry on to an engraving. */
  *pixels_per_meter_out =
      png_get_pHYs(png, info, &res_x, &res_y, &unit) && unit == PNG_RESOLUTION_METER &&
              res_x == res_y && res_x >= 40 && res_x <= 3937008
          ? res_x
          : 0;
}

int emboss_png_decode_rgba16(const unsigned char *data, size_t size, uint64_t max_pixels,
                             uint16_t **pixels_out, uint32_t *width_out, uint32_t *height_out,
                             uint32_t *pixels_per_meter_out, char *err, size_t err_len) {
  *pixels_out = NULL;
  if (check_signature(data, size, err, err_len)) return 1;
  error_sink sink = {err, err_len};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &sink, on_error, on_warning);
  if (!png) {
    set_error(err, err_len, "cannot create PNG reader");
    return 1;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, NULL, NULL);
    set_error(err, err_len, "cannot create PNG info");
    return 1;
  }
  /* volatile: modified between setjmp and a possible longjmp. */
  uint16_t *volatile pixels = NULL;
  png_bytep *volatile rows = NULL;
  if (setjmp(png_jmpbuf(png))) {
    free(pixels);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return 1;
  }
  read_cursor cursor = {data, size, 0};
  read_header(png, info, &cursor, max_pixels, pixels_per_meter_out);
  png_uint_32 width = png_get_image_width(png, info);
  png_uint_32 height = png_get_image_height(png, info);

  int color_type = png_get_color_type(png, info);
  png_set_expand(png);       /* palette -> RGB, gray < 8 bits -> 8 bits, tRNS -> alpha */
  png_set_expand_16(png);    /* 8-bit samples -> 16-bit */
  if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
    png_set_gray_to_rgb(png);
  }
  png_set_add_alpha(png, 0xffff, PNG_FILLER_AFTER); /* no effect where alpha exists */
  png_set_swap(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);

  size_t row_bytes = png_get_rowbytes(png, info);
  if (row_bytes != (size_t)width * 8) png_error(png, "unexpected row layout after conversion");
  pixels = (uint16_t *)malloc(row_bytes * (size_t)height);
  rows = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)height);
  if (!pixels || !rows) png_error(png, "out of memory while decoding PNG");
  for (png_uint_32 y = 0; y < height; y++) rows[y] = (png_bytep)pixels + (size_t)y * row_bytes;
  png_read_image(png, rows);
  png_read_end(png, NULL);
  free(rows);
  png_destroy_read_struct(&png, &info, NULL);
  *pixels_out = pixels;
  *width_out = width;
  *height_out = height;
  return 0;
}

void emboss_png_free(void *pointer) { free(pointer); }

/* ---------- reading row by row ---------- */

struct emboss_png_reader {
  png_structp png;
  png_infop info;
  read_cursor cursor;
  error_sink sink;
  uint32_t width;
  uint32_t height;
  uint32_t next_row;
  size_t row_bytes;
  /* Interlaced images are decoded whole on open (libpng needs every pass); rows then come
     from here. */
  unsigned char *whole;
};

void emboss_png_reader_close(emboss_png_reader *reader) {
  if (!reader) return;
  png_destroy_read_struct(&reader->png, &reader->info, NULL);
  free(reader->whole);
  free(reader);
}

int emboss_png_reader_open(const unsigned char *data, size_t size, uint64_t max_pixels,
                           emboss_png_reader **reader_out, uint32_t *width_out,
                           uint32_t *height_out, uint32_t *pixels_per_meter_out,
                           int *sixteen_out, char *err, size_t err_len) {
  *reader_out = NULL;
  if (check_signature(data, size, err, err_len)) return 1;
  emboss_png_reader *reader = (emboss_png_reader *)calloc(1, sizeof *reader);
  if (!reader) {
    set_error(err, err_len, "out of memory while opening PNG");
    return 1;
  }
  reader->sink.err = err;
  reader->sink.err_len = err_len;
  reader->cursor = (read_cursor){data, size, 0};
  reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader->sink, on_error, on_warning);
  if (!reader->png || !(reader->info = png_create_info_struct(reader->png))) {
    emboss_png_reader_close(reader);
    set_error(err, err_len, "cannot create PNG reader");
    return 1;
  }
  /* volatile: modified between setjmp and a possible longjmp. */
  png_bytep *volatile rows = NULL;
  png_structp png = reader->png;
  png_infop info = reader->info;
  if (setjmp(png_jmpbuf(png))) {
    free(rows);
    emboss_png_reader_close(reader);
    return 1;
  }
  read_header(png, info, &reader->cursor, max_pixels, pixels_per_meter_out);
  png_uint_32 width = png_get_image_width(png, info);
  png_uint_32 height = png_get_image_height(png, info);
  int color_type = png_get_color_type(png, info);
  int sixteen = png_get_bit_depth(png, info) == 16;
  png_set_expand(png); /* palette -> RGB, gray < 8 bits -> 8 bits, tRNS -> alpha */
  if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
    png_set_gray_to_rgb(png);
  }
  png_set_add_alpha(png, sixteen ? 0xffff : 0xff, PNG_FILLER_AFTER);
  if (sixteen) png_set_swap(png);
  int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  size_t row_bytes = png_get_rowbytes(png, info);
  if (row_bytes != (size_t)width * (sixteen ? 8 : 4)) {
    png_error(png, "unexpected row layout after conversion");
  }
  reader->width = width;
  reader->height = height;
  reader->row_bytes = row_bytes;
  if (passes > 1) {
    reader->whole = (unsigned char *)malloc(row_bytes * (size_t)height);
    rows = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)height);
    if (!reader->whole || !rows) png_error(png, "out of memory while decoding PNG");
    for (png_uint_32 y = 0; y < height; y++) rows[y] = reader->whole + (size_t)y * row_bytes;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    rows = NULL;
  }
  *reader_out = reader;
  *width_out = width;
  *height_out = height;
  *sixteen_out = sixteen;
  return 0;
}

int emboss_png_reader_rows(emboss_png_reader *reader, void *buffer, uint32_t count, char *err,
                           size_t err_len) {
  reader->sink.err = err;
  reader->sink.err_len = err_len;
  if ((uint64_t)reader->next_row + count > reader->height) {
    set_error(err, err_len, "read past the last row");
    return 1;
  }
  unsigned char *out = (unsigned char *)buffer;
  if (reader->whole) {
    memcpy(out, reader->whole + (size_t)reader->next_row * reader->row_bytes,
           (size_t)count * reader->row_bytes);
    reader->next_row += count;
    return 0;
  }
  png_structp png = reader->png;
  if (setjmp(png_jmpbuf(png))) return 1;
  for (uint32_t i = 0; i < count; i++) {
    png_read_row(png, out + (size_t)i * reader->row_bytes, NULL);
  }
  reader->next_row += count;
  /* After the last row, the rest of the stream (its checksum, the chunks after it). */
  if (reader->next_row == reader->height) png_read_end(png, NULL);
  return 0;
}
