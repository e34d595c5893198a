// Polygon offsetting for exact cut lines, through Debian's Clipper 6 (libpolyclipping).
#include "emboss_clipper.h"

#include <polyclipping/clipper.hpp>

#include <cstdlib>
#include <cstring>

extern "C" int emboss_offset_polygons(const int64_t *xy, const int32_t *counts,
                                      int32_t pathCount, double delta, double arcTolerance,
                                      int miter, double miterLimit, emboss_polygons *out) {
  out->xy = nullptr;
  out->counts = nullptr;
  out->pathCount = 0;
  try {
    ClipperLib::Paths paths(pathCount);
    size_t k = 0;
    for (int32_t i = 0; i < pathCount; i++) {
      paths[i].reserve(counts[i]);
      for (int32_t j = 0; j < counts[i]; j++, k++) {
        paths[i].push_back(ClipperLib::IntPoint(xy[2 * k], xy[2 * k + 1]));
      }
    }
    ClipperLib::ClipperOffset offset(miterLimit, arcTolerance);
    offset.AddPaths(paths, miter ? ClipperLib::jtMiter : ClipperLib::jtRound,
                    ClipperLib::etClosedPolygon);
    ClipperLib::Paths solution;
    offset.Execute(solution, delta);
    size_t points = 0;
    for (const auto &path : solution) points += path.size();
    out->xy = static_cast<int64_t *>(std::malloc(sizeof(int64_t) * 2 * (points ? points : 1)));
    out->counts =
        static_cast<int32_t *>(std::malloc(sizeof(int32_t) * (solution.size() ? solution.size() : 1)));
    if (!out->xy || !out->counts) {
      emboss_polygons_free(out);
      return -1;
    }
    k = 0;
    for (size_t i = 0; i < solution.size(); i++) {
      out->counts[i] = static_cast<int32_t>(solution[i].size());
      for (const auto &p : solution[i]) {
        out->xy[2 * k] = p.X;
        out->xy[2 * k + 1] = p.Y;
        k++;
      }
    }
    out->pathCount = static_cast<int32_t>(solution.size());
    return 0;
  } catch (...) {
    emboss_polygons_free(out);
    return -1;
  }
}

extern "C" void emboss_polygons_free(emboss_polygons *polygons) {
  std::free(polygons->xy);
  std::free(polygons->counts);
  polygons->xy = nullptr;
  polygons->counts = nullptr;
  polygons->pathCount = 0;
}
