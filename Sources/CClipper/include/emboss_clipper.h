#ifndef EMBOSS_CLIPPER_H
#define EMBOSS_CLIPPER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Closed polygons in integer coordinates: path i has counts[i] points, stored one after the
/// other in xy as x, y pairs.
typedef struct {
  int64_t *xy;
  int32_t *counts;
  int32_t pathCount;
} emboss_polygons;

/// Offsets closed polygons by delta (Clipper 6's ClipperOffset, etClosedPolygon), the result
/// unioned by the nonzero rule: outer polygons must have a positive signed area, holes a
/// negative one, and a positive delta grows the outer ones. Joins are round (miter 0) or
/// mitred (miter 1, squared off where the miter would reach past miterLimit times delta).
/// arcTolerance is the largest distance between a round join's arc and its polygon. On
/// success returns 0 and fills *out (free it with emboss_polygons_free); -1 on an error
/// (coordinates out of Clipper's range, memory).
int emboss_offset_polygons(const int64_t *xy, const int32_t *counts, int32_t pathCount,
                           double delta, double arcTolerance, int miter, double miterLimit,
                           emboss_polygons *out);

/// Frees what emboss_offset_polygons allocated.
void emboss_polygons_free(emboss_polygons *polygons);

#ifdef __cplusplus
}
#endif

#endif
