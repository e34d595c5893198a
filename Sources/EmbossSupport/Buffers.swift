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

extension Array {
  /// `Array(unsafeUninitializedCapacity:initializingWith:)`, without a store into shared
  /// storage where there is no capacity.
  ///
  /// With no capacity the standard library's stores the count (a 0 over a 0) into the storage
  /// every empty array shares, which ThreadSanitizer reports as a race with any thread reading
  /// an empty array's count (in `emboss batch`, a row's compositor beside the CSV reader).
  /// Here `body` then gets an empty buffer, its count is not read, and the array is `[]`.
  @inlinable
  package init(
    uninitializedCount capacity: Int,
    initializingWith body: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void
  ) rethrows {
    guard capacity > 0 else {
      var buffer = UnsafeMutableBufferPointer<Element>(start: nil, count: 0)
      var count = 0
      try body(&buffer, &count)
      self = []
      return
    }
    try self.init(unsafeUninitializedCapacity: capacity, initializingWith: body)
  }
}
