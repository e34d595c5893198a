/// Small vector helpers shared by the stages.

@inlinable @inline(__always)
package func simdDot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
  (a * b).sum()
}

@inlinable @inline(__always)
package func normalized(_ v: SIMD3<Float>) -> SIMD3<Float> {
  let length = simdDot(v, v).squareRoot()
  return length > 0 ? v / length : SIMD3(0, 0, 1)
}

@inlinable @inline(__always)
package func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
  let t = min(max((x - e0) / (e1 - e0), 0), 1)
  return t * t * (3 - 2 * t)
}
