#include "emboss_image_formats.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <webp/decode.h>
#include <webp/encode.h>

static void set_error(char *err, size_t err_len, const char *message) {
  if (err && err_len > 0) {
    strncpy(err, message, err_len - 1);
    err[err_len - 1] = '\0';
  }
}

void emboss_image_free(void *pointer) { free(pointer); }

/* MARK: JPEG */

typedef struct {
  struct jpeg_error_mgr base;
  jmp_buf jump;
  char *err;
  size_t err_len;
} jpeg_error_sink;

static void jpeg_on_error(j_common_ptr info) {
  jpeg_error_sink *sink = (jpeg_error_sink *)info->err;
  char message[JMSG_LENGTH_MAX];
  (*info->err->format_message)(info, message);
  set_error(sink->err, sink->err_len, message);
  longjmp(sink->jump, 1);
}

/* Warnings (a corrupt but readable stream) are not fatal, except the end of the data before
   the end of the picture: libjpeg would fill the rest, so a few hundred bytes could stand for
   millions of pixels. A truncated JPEG is an error, as a truncated PNG is. */
static void jpeg_on_message(j_common_ptr info) { (void)info; }

static void jpeg_on_emit(j_common_ptr info, int level) {
  if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) {
    jpeg_error_sink *sink = (jpeg_error_sink *)info->err;
    set_error(sink->err, sink->err_len, "file is truncated");
    longjmp(sink->jump, 1);
  }
}

int emboss_jpeg_decode_rgba8(const unsigned char *data, size_t size, uint64_t max_pixels,
                             uint8_t **pixels_out, uint32_t *width_out, uint32_t *height_out,
                             uint32_t *pixels_per_meter_out, char *err, size_t err_len) {
  *pixels_out = NULL;
  *pixels_per_meter_out = 0;
  if (size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF) {
    set_error(err, err_len, "not a JPEG file (no SOI marker)");
    return 1;
  }
  struct jpeg_decompress_struct info;
  jpeg_error_sink sink;
  memset(&info, 0, sizeof info);
  info.err = jpeg_std_error(&sink.base);
  sink.base.error_exit = jpeg_on_error;
  sink.base.output_message = jpeg_on_message;
  sink.base.emit_message = jpeg_on_emit;
  sink.err = err;
  sink.err_len = err_len;
  uint8_t *volatile pixels = NULL;
  uint8_t *volatile row = NULL;
  if (setjmp(sink.jump)) {
    free(pixels);
    free(row);
    jpeg_destroy_decompress(&info);
    return 1;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, (unsigned long)size);
  jpeg_read_header(&info, TRUE);
  uint64_t count = (uint64_t)info.image_width * info.image_height;
  if (info.image_width == 0 || info.image_height == 0) {
    set_error(err, err_len, "the JPEG has no pixels");
    jpeg_destroy_decompress(&info);
    return 1;
  }
  if (count > max_pixels) {
    char message[160];
    snprintf(message, sizeof message, "%ux%u pixels is over the limit of %llu pixels",
             info.image_width, info.image_height, (unsigned long long)max_pixels);
    set_error(err, err_len, message);
    jpeg_destroy_decompress(&info);
    return 1;
  }
  if (info.density_unit == 1 && info.X_density > 0) {
    *pixels_per_meter_out = (uint32_t)(info.X_density / 0.0254 + 0.5);
  } else if (info.density_unit == 2 && info.X_density > 0) {
    *pixels_per_meter_out = (uint32_t)info.X_density * 100u;
  }
  /* CMYK and YCCK come out as CMYK (Adobe's inverted form); everything else as RGB. */
  int cmyk = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
  info.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_start_decompress(&info);
  size_t width = info.output_width;
  int components = info.output_components;
  pixels = malloc(width * info.output_height * 4);
  row = malloc(width * (size_t)components);
  if (!pixels || !row) {
    set_error(err, err_len, "out of memory decoding the JPEG");
    longjmp(sink.jump, 1);
  }
  while (info.output_scanline < info.output_height) {
    size_t y = info.output_scanline;
    JSAMPROW rows[1] = {row};
    jpeg_read_scanlines(&info, rows, 1);
    uint8_t *out = pixels + y * width * 4;
    for (size_t x = 0; x < width; x++) {
      const uint8_t *in = row + x * (size_t)components;
      if (cmyk) {
        /* Adobe stores inverted CMYK: C' = 255 - C; R = C' * K' / 255. */
        unsigned k = in[3];
        out[4 * x] = (uint8_t)((in[0] * k + 127) / 255);
        out[4 * x + 1] = (uint8_t)((in[1] * k + 127) / 255);
        out[4 * x + 2] = (uint8_t)((in[2] * k + 127) / 255);
      } else if (components == 1) {
        out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = in[0];
      } else {
        out[4 * x] = in[0];
        out[4 * x + 1] = in[1];
        out[4 * x + 2] = in[2];
      }
      out[4 * x + 3] = 255;
    }
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  free(row);
  *pixels_out = pixels;
  *width_out = (uint32_t)width;
  *height_out = (uint32_t)info.output_height;
  return 0;
}

int emboss_jpeg_encode_rgb8(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                            uint32_t pixels_per_meter, unsigned char **bytes_out,
                            size_t *size_out, char *err, size_t err_len) {
  *bytes_out = NULL;
  *size_out = 0;
  if (width == 0 || height == 0 || width > 65500 || height > 65500) {
    set_error(err, err_len, "JPEG pictures are 1 to 65500 pixels a side");
    return 1;
  }
  struct jpeg_compress_struct info;
  jpeg_error_sink sink;
  memset(&info, 0, sizeof info);
  info.err = jpeg_std_error(&sink.base);
  sink.base.error_exit = jpeg_on_error;
  sink.base.output_message = jpeg_on_message;
  sink.err = err;
  sink.err_len = err_len;
  unsigned char *volatile bytes = NULL;
  unsigned long volatile size = 0;
  if (setjmp(sink.jump)) {
    jpeg_destroy_compress(&info);
    free(bytes);
    return 1;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, (unsigned char **)&bytes, (unsigned long *)&size);
  info.image_width = width;
  info.image_height = height;
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
  if (quality >= 90) {
    for (int i = 0; i < info.num_components; i++) {
      info.comp_info[i].h_samp_factor = 1;
      info.comp_info[i].v_samp_factor = 1;
    }
  }
  info.optimize_coding = TRUE;
  if (pixels_per_meter > 0) {
    /* A whole DPI (the one whose pixels per meter these are) in dots per inch, exactly;
       any other in dots per centimeter. */
    double dpi = pixels_per_meter * 0.0254;
    unsigned whole = (unsigned)(dpi + 0.5);
    if (whole >= 1 && whole <= 65535 && (uint32_t)(whole / 0.0254 + 0.5) == pixels_per_meter) {
      info.density_unit = 1; /* dots per inch */
      info.X_density = info.Y_density = (UINT16)whole;
    } else {
      info.density_unit = 2; /* dots per cm */
      unsigned density = (pixels_per_meter + 50) / 100;
      info.X_density = info.Y_density = (UINT16)(density > 65535 ? 65535 : density);
    }
  }
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < height) {
    JSAMPROW rows[1] = {(JSAMPROW)(rgb + (size_t)info.next_scanline * width * 3)};
    jpeg_write_scanlines(&info, rows, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  *bytes_out = bytes;
  *size_out = size;
  return 0;
}

/* MARK: WebP */

int emboss_webp_decode_rgba8(const unsigned char *data, size_t size, uint64_t max_pixels,
                             uint8_t **pixels_out, uint32_t *width_out, uint32_t *height_out,
                             char *err, size_t err_len) {
  *pixels_out = NULL;
  int width = 0, height = 0;
  if (!WebPGetInfo(data, size, &width, &height)) {
    set_error(err, err_len, "not a WebP picture libwebp can read");
    return 1;
  }
  /* An animation's frames are not one picture (the simple decoder refuses them as if the
     data were broken): say what it is. */
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(data, size, &features) == VP8_STATUS_OK && features.has_animation) {
    set_error(err, err_len, "an animated WebP; emboss reads still pictures (save one frame)");
    return 1;
  }
  if ((uint64_t)width * (uint64_t)height > max_pixels) {
    char message[160];
    snprintf(message, sizeof message, "%dx%d pixels is over the limit of %llu pixels", width,
             height, (unsigned long long)max_pixels);
    set_error(err, err_len, message);
    return 1;
  }
  uint8_t *pixels = WebPDecodeRGBA(data, size, &width, &height);
  if (!pixels) {
    set_error(err, err_len, "the WebP data is corrupt or truncated");
    return 1;
  }
  /* WebP's buffer is freed with WebPFree; hand out a malloc'd copy so one free fits all. */
  size_t bytes = (size_t)width * (size_t)height * 4;
  uint8_t *copy = malloc(bytes);
  if (!copy) {
    WebPFree(pixels);
    set_error(err, err_len, "out of memory decoding the WebP");
    return 1;
  }
  memcpy(copy, pixels, bytes);
  WebPFree(pixels);
  *pixels_out = copy;
  *width_out = (uint32_t)width;
  *height_out = (uint32_t)height;
  return 0;
}

int emboss_webp_encode_rgba8(const uint8_t *rgba, uint32_t width, uint32_t height,
                             int quality, unsigned char **bytes_out, size_t *size_out,
                             char *err, size_t err_len) {
  *bytes_out = NULL;
  *size_out = 0;
  if (width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
    set_error(err, err_len, "WebP pictures are 1 to 16383 pixels a side");
    return 1;
  }
  uint8_t *output = NULL;
  size_t size = quality < 0
      ? WebPEncodeLosslessRGBA(rgba, (int)width, (int)height, (int)width * 4, &output)
      : WebPEncodeRGBA(rgba, (int)width, (int)height, (int)width * 4, (float)quality, &output);
  if (size == 0 || !output) {
    set_error(err, err_len, "libwebp could not encode the picture");
    return 1;
  }
  unsigned char *copy = malloc(size);
  if (!copy) {
    WebPFree(output);
    set_error(err, err_len, "out of memory encoding the WebP");
    return 1;
  }
  memcpy(copy, output, size);
  WebPFree(output);
  *bytes_out = copy;
  *size_out = size;
  return 0;
}

void emboss_picture_size(const unsigned char *data, size_t size, uint32_t *width_out,
                         uint32_t *height_out) {
  *width_out = 0;
  *height_out = 0;
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
    struct jpeg_decompress_struct info;
    jpeg_error_sink sink;
    char message[JMSG_LENGTH_MAX];
    memset(&info, 0, sizeof info);
    info.err = jpeg_std_error(&sink.base);
    sink.base.error_exit = jpeg_on_error;
    sink.base.output_message = jpeg_on_message;
    sink.err = message;
    sink.err_len = sizeof message;
    if (setjmp(sink.jump)) {
      jpeg_destroy_decompress(&info);
      return;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    *width_out = info.image_width;
    *height_out = info.image_height;
    jpeg_destroy_decompress(&info);
    return;
  }
  int width = 0, height = 0;
  if (WebPGetInfo(data, size, &width, &height)) {
    *width_out = (uint32_t)width;
    *height_out = (uint32_t)height;
  }
}
