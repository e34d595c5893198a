#ifndef EMBOSS_IMAGE_FORMATS_H
#define EMBOSS_IMAGE_FORMATS_H

#include <stddef.h>
#include <stdint.h>

/// JPEG and WebP, decoded to 8-bit RGBA and encoded from it. libjpeg's errors longjmp: every
/// libjpeg call, the setjmp and the cleanup live in one C frame here, so an error never
/// longjmps across Swift (libjpeg's default handler would call exit()).
///
/// Decoders refuse pictures over `max_pixels` from the header, before pixel memory is
/// allocated. Every function returns 0 on success, else non-zero with a message in `err`.
/// Free returned pixels and encoded bytes with emboss_image_free.

int emboss_jpeg_decode_rgba8(const unsigned char *data, size_t size, uint64_t max_pixels,
                             uint8_t **pixels_out, uint32_t *width_out, uint32_t *height_out,
                             uint32_t *pixels_per_meter_out, char *err, size_t err_len);

/// Encodes opaque RGB (3 bytes a pixel, rows top to bottom) at `quality` 1...100, baseline,
/// 4:2:0 chroma subsampling below quality 90 and 4:4:4 from 90, with the density in a JFIF
/// header when `pixels_per_meter` is non-zero. No comment or EXIF markers: equal pixels give
/// equal bytes.
int emboss_jpeg_encode_rgb8(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                            uint32_t pixels_per_meter, unsigned char **bytes_out,
                            size_t *size_out, char *err, size_t err_len);

int emboss_webp_decode_rgba8(const unsigned char *data, size_t size, uint64_t max_pixels,
                             uint8_t **pixels_out, uint32_t *width_out, uint32_t *height_out,
                             char *err, size_t err_len);

/// Encodes RGBA (4 bytes a pixel): lossy at `quality` 0...100, or lossless when `quality`
/// is negative.
int emboss_webp_encode_rgba8(const uint8_t *rgba, uint32_t width, uint32_t height,
                             int quality, unsigned char **bytes_out, size_t *size_out,
                             char *err, size_t err_len);

/// The width and height in a JPEG's or WebP's header (0 and 0 when it cannot be read).
void emboss_picture_size(const unsigned char *data, size_t size, uint32_t *width_out,
                         uint32_t *height_out);

void emboss_image_free(void *pointer);

#endif
