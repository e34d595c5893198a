// swift-tools-version:6.0
// A package of its own that renders with EmbossKit and snapshot-tests its renders with
// EmbossSnapshotTesting. `.ci/consumer-test.sh` builds and tests it against a copy of this
// repository laid next to it; in your own package, point the dependency at your emboss
// checkout or repository instead (`.package(url: "...", branch: "main")`).
import PackageDescription

let package = Package(
  name: "NameBadges",
  products: [.library(name: "NameBadges", targets: ["NameBadges"])],
  dependencies: [
    .package(path: "../emboss"),
    .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
  ],
  targets: [
    .target(name: "NameBadges", dependencies: [.product(name: "EmbossKit", package: "emboss")]),
    .testTarget(
      name: "NameBadgesTests",
      dependencies: [
        "NameBadges",
        .product(name: "EmbossSnapshotTesting", package: "emboss"),
        .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
      ],
      exclude: ["__Snapshots__"]
    ),
  ]
)
