#ifndef EMBOSS_PNG_H
#define EMBOSS_PNG_H

#include <stddef.h>
#include <stdint.h>

/// A growable byte buffer that libpng writes into. Free with emboss_png_buffer_free.
typedef struct {
  unsigned char *data;
  size_t size;
  size_t capacity;
} emboss_png_buffer;

/// Encodes an image as PNG into `out`. Every libpng call, the setjmp and the cleanup live in
/// this one C frame, so a libpng error never longjmps across Swift.
///
/// - pixels: rows top to bottom, no padding. Channels 1 (gray), 2 (gray+alpha), 3 (RGB) or 4
///   (RGBA).
///   bit_depth 8: one byte a sample; 16: little-endian uint16 a sample (libpng swaps);
///   1: gray only, rows packed MSB first, (width + 7) / 8 bytes a row.
/// - compression_level: zlib level 0...9.
/// - pixels_per_meter: written as a pHYs chunk when non-zero.
/// - srgb: when non-zero an sRGB chunk (perceptual intent) is written.
/// No tIME or text chunks are written, so equal pixels give equal bytes.
/// Returns 0 on success, else non-zero with a message in `err`.
int emboss_png_encode(const void *pixels, uint32_t width, uint32_t height, int channels,
                      int bit_depth, int compression_level, uint32_t pixels_per_meter, int srgb,
                      emboss_png_buffer *out, char *err, size_t err_len);

void emboss_png_buffer_free(emboss_png_buffer *buffer);

/// One band of a zlib stream compressed on its own, so bands can be compressed in parallel
/// and concatenated (as pigz does), fed a few rows at a time so that no band is held whole:
/// rows are Up-filtered (each row minus the one above; the band's first row uses the
/// `previous_row` given with it, or none for the image's first row), each prefixed with its
/// filter byte, then raw-deflated by zlib at `level`. A band that is not the stream's last
/// ends with a full flush (byte-aligned, no final block) so the next band's data can follow
/// it.
typedef struct emboss_deflate_band emboss_deflate_band;

/// A band of rows of `row_bytes` compressed by zlib at `level`, or by ISA-L's igzip at
/// `igzip_level` (0...2) where that is not negative, fed at most `max_rows` rows a call; NULL
/// (with a message in `err`) when the compressor cannot start or memory runs out.
emboss_deflate_band *emboss_deflate_band_begin(int level, int igzip_level, size_t row_bytes,
                                               size_t max_rows, char *err, size_t err_len);

/// `emboss_deflate_band_begin` with igzip's stream state in `igzip_stream` (at least
/// `emboss_igzip_stream_size()` bytes, kept by the caller until the band ends) instead of
/// on the heap, or on the heap where it is NULL: what lets a test check that a band's bytes do
/// not depend on where its compressor lives.
emboss_deflate_band *emboss_deflate_band_begin_at(int level, int igzip_level, size_t row_bytes,
                                                  size_t max_rows, void *igzip_stream,
                                                  char *err, size_t err_len);

/// `emboss_deflate_band_begin` for runs: zlib's run-length strategy (`Z_RLE`: matches only
/// at a distance of one byte), for 1-bit rows, which the Up filter makes runs of zeros: about
/// 40 times zlib level 9's speed on a thresholded engraving, for a stream 3-6% longer.
emboss_deflate_band *emboss_deflate_band_begin_runs(size_t row_bytes, size_t max_rows, char *err,
                                                    size_t err_len);

/// The bytes of igzip's stream state (`struct isal_zstream`).
size_t emboss_igzip_stream_size(void);

/// Appends `row_count` rows (of the band's `row_bytes`) to the band, compressed into `out`; `previous_row`
/// is the row above the first of them (NULL for the image's first row). `end`: 0 more rows
/// follow, 1 the band ends here (full flush), 2 the stream ends here. zlib's bytes do not
/// depend on how the rows are split between calls.
/// Returns 0 on success, else non-zero with a message in `err`.
int emboss_deflate_band_rows(emboss_deflate_band *band, const unsigned char *rows,
                             size_t row_count, const unsigned char *previous_row, int end,
                             emboss_png_buffer *out, char *err, size_t err_len);

/// Frees the band; `adler_out` receives the Adler-32 of its filtered bytes and
/// `filtered_size_out` their count.
void emboss_deflate_band_end(emboss_deflate_band *band, uint32_t *adler_out,
                             size_t *filtered_size_out);

/// The Adler-32 of two concatenated byte strings from each one's checksum (zlib's combine).
uint32_t emboss_adler32_combine(uint32_t first, uint32_t second, size_t second_size);

/// Writes a PNG whose image data is the given complete zlib stream (as built from
/// emboss_deflate_band results): header chunks through libpng (IHDR, sRGB, pHYs, as in
/// emboss_png_encode), the stream as IDAT chunks of at most 1 MiB, then IEND.
/// Returns 0 on success, else non-zero with a message in `err`.
int emboss_png_write_zlib(uint32_t width, uint32_t height, int channels, int bit_depth,
                          uint32_t pixels_per_meter, int srgb, const unsigned char *zlib_stream,
                          size_t zlib_size, emboss_png_buffer *out, char *err, size_t err_len);

/// Decodes any PNG libpng reads (gray, gray+alpha, RGB, RGBA, palette, 1...16 bits, tRNS)
/// into RGBA with 16-bit little-endian samples (libpng swaps), straight alpha, in the file's own encoding.
/// Dimensions are checked against max_pixels from the header, before any pixel memory is
/// allocated. On success *pixels_out must be released with emboss_png_free.
/// pixels_per_meter_out receives the pHYs x density in pixels a meter, or 0.
/// Returns 0 on success, else non-zero with a message in `err`.
int emboss_png_decode_rgba16(const unsigned char *data, size_t size, uint64_t max_pixels,
                             uint16_t **pixels_out, uint32_t *width_out, uint32_t *height_out,
                             uint32_t *pixels_per_meter_out, char *err, size_t err_len);

/// A PNG read row by row, so a large picture is never held whole (interlaced ones are, as
/// libpng needs every pass).
typedef struct emboss_png_reader emboss_png_reader;

/// Opens a PNG held in memory (which must outlive the reader): dimensions checked against
/// max_pixels from the header; rows come as RGBA, 8-bit samples, or 16-bit little-endian
/// when the file has 16 bits (*sixteen_out = 1), straight alpha, in the file's own encoding.
/// Returns 0 on success (release with emboss_png_reader_close), else non-zero with a message.
int emboss_png_reader_open(const unsigned char *data, size_t size, uint64_t max_pixels,
                           emboss_png_reader **reader_out, uint32_t *width_out,
                           uint32_t *height_out, uint32_t *pixels_per_meter_out,
                           int *sixteen_out, char *err, size_t err_len);

/// The next `count` rows into `buffer` (count x width x 4 samples). Returns 0 on success,
/// else non-zero with a message in `err` (a corrupt stream); the reader is then done.
int emboss_png_reader_rows(emboss_png_reader *reader, void *buffer, uint32_t count, char *err,
                           size_t err_len);

void emboss_png_reader_close(emboss_png_reader *reader);

/// Reads only the header: dimensions, to check a file before decoding it.
int emboss_png_read_size(const unsigned char *data, size_t size, uint32_t *width_out,
                         uint32_t *height_out, char *err, size_t err_len);

void emboss_png_free(void *pointer);

#endif
