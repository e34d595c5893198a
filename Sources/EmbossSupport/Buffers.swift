/// A plain value shared with the bands of a parallel loop (SIMD vectors of Sendable scalars
/// are values, but the compiler cannot see it for a generic scalar).
package struct UncheckedSendable<Value>: @unchecked Sendable {
  package let value: Value
  package init(_ value: Value) { self.value = value }
}

/// Read-only buffer access shared by the bands of a parallel loop.
package struct UnsafeBufferPointerBox<Element>: @unchecked Sendable {
  package let buffer: UnsafeBufferPointer<Element>
  @inlinable package init(_ buffer: UnsafeBufferPointer<Element>) { self.buffer = buffer }
}

/// The text of a NUL-terminated C string buffer.
package func cString(_ buffer: [CChar]) -> String {
  let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
  return String(decoding: bytes, as: UTF8.self)
}

/// Calls `body` with a pointer to `value`'s payload (nil where `value` is nil), valid inside
/// the call, for an inner loop that reads a large optional value at every pixel: binding
/// the optional (`if let`) copies its payload each time (a few hundred bytes, and a retain
/// of each reference it holds), where the pointer reads it in place.
@inlinable
package func withPayload<Value, Result>(
  of value: Value?, _ body: (UnsafePointer<Value>?) throws -> Result
) rethrows -> Result {
  guard let value else { return try body(nil) }
  return try withUnsafePointer(to: value) { try body($0) }
}
