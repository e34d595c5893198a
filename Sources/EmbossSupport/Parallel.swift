import Dispatch
import Foundation
import Synchronization

/// How many threads a stage may use.
///
/// Output never depends on it: work is split into fixed
/// bands of rows (or columns) whose results land in disjoint memory, and no reduction depends
/// on which thread ran what.
public struct Parallelism: Sendable, Equatable {
  /// How many threads work at once, at least 1.
  public let threads: Int

  /// `threads` threads (at least 1).
  public init(threads: Int) {
    self.threads = max(1, threads)
  }

  /// All cores of this machine.
  public static var allCores: Parallelism {
    Parallelism(threads: ProcessInfo.processInfo.activeProcessorCount)
  }

  /// One thread: the caller's.
  public static let serial = Parallelism(threads: 1)

  /// Calls `body` once for each band of `bandSize` consecutive indices in `0..<count`.
  ///
  /// Bands are fixed by `count` and `bandSize` alone; each thread takes the next band no
  /// thread has taken yet (so a thread whose bands are cheap, such as background rows, takes
  /// more of them), and runs its bands in increasing order.
  package func forEachBand(
    _ count: Int, bandSize: Int = 16, _ body: @Sendable (Range<Int>) -> Void
  ) {
    guard count > 0 else { return }
    let bands = (count + bandSize - 1) / bandSize
    let workers = min(threads, bands)
    if workers <= 1 {
      for band in 0..<bands {
        body(band * bandSize..<min(count, (band + 1) * bandSize))
      }
      return
    }
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while true {
        let band = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard band < bands else { return }
        body(band * bandSize..<min(count, (band + 1) * bandSize))
      }
    }
  }
}

/// A raw pointer that bands of a parallel loop write through.
///
/// Each band writes only its own
/// rows, so sharing the pointer across threads is safe by construction.
///
/// Public, not package: the bodies of a generic package type's `@inlinable` members were
/// not made available to other modules, so every write through it ran unspecialized (a
/// call and the value witnesses per pixel: 6% of the mercury preset's render of case B).
public struct SharedPointer<Element>: @unchecked Sendable {
  /// The storage the bands write.
  public let buffer: UnsafeMutableBufferPointer<Element>

  /// A shared pointer to `buffer`.
  @inlinable
  public init(_ buffer: UnsafeMutableBufferPointer<Element>) {
    self.buffer = buffer
  }

  /// Element `index` (initialized storage).
  @inlinable
  public subscript(index: Int) -> Element {
    get { buffer[index] }
    nonmutating set { buffer[index] = newValue }
  }

  /// Initializes element `index` of uninitialized storage.
  ///
  /// (Always inlined: called per pixel, it ran unspecialized, through the value witnesses.)
  @inlinable @inline(__always)
  public func initialize(_ index: Int, to value: Element) {
    buffer.initializeElement(at: index, to: value)
  }
}
