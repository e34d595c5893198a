import EmbossSnapshotTesting
import Foundation
import NameBadges
import SnapshotTesting
import XCTest

final class NameBadgeTests: XCTestCase {
  /// "Ada" in gold matches its reference, `__Snapshots__/NameBadgeTests/testAda.1.png`.
  ///
  /// NAME_BADGE_TEXT and
  /// NAME_BADGE_MATERIAL change what is rendered, so that the consumer test can check that
  /// a different picture fails.
  func testAda() throws {
    let environment = ProcessInfo.processInfo.environment
    let badge = try NameBadge.render(
      environment["NAME_BADGE_TEXT"] ?? "Ada",
      material: environment["NAME_BADGE_MATERIAL"] ?? "gold")
    assertSnapshot(of: badge, as: .png(tolerance: 2))
  }
}
