// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
  name: "emboss",
  products: [
    .library(name: "EmbossKit", targets: ["EmbossKit"]),
    // Snapshot tests of renders in other packages; separate, so that depending on EmbossKit
    // does not bring in swift-snapshot-testing.
    .library(name: "EmbossSnapshotTesting", targets: ["EmbossSnapshotTesting"]),
    .executable(name: "emboss", targets: ["emboss"]),
    // The studio's process, which `emboss studio` runs in its own place (see
    // Sources/emboss-studio/main.swift).
    .executable(name: "emboss-studio", targets: ["emboss-studio"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
    .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
    .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    .systemLibrary(
      name: "CFreeType",
      pkgConfig: "freetype2",
      providers: [.apt(["libfreetype-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CFontconfig",
      pkgConfig: "fontconfig",
      providers: [.apt(["libfontconfig-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CHarfBuzz",
      pkgConfig: "harfbuzz",
      providers: [.apt(["libharfbuzz-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CFriBidi",
      pkgConfig: "fribidi",
      providers: [.apt(["libfribidi-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CGLib",
      pkgConfig: "glib-2.0",
      providers: [.apt(["libglib2.0-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CLibPNG",
      pkgConfig: "libpng",
      providers: [.apt(["libpng-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CLibJPEG",
      pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CLibWebP",
      pkgConfig: "libwebp",
      providers: [.apt(["libwebp-dev", "pkg-config"])]
    ),
    // JPEG and WebP: libjpeg's setjmp stays in C, as libpng's does.
    .target(name: "CImageFormats", dependencies: ["CLibJPEG", "CLibWebP"]),
    // Owns every libpng call that needs setjmp: no longjmp ever crosses a Swift frame. libpng
    // writes the container; zlib or ISA-L's igzip (libisal-dev) deflates the bands.
    .target(
      name: "CPNG", dependencies: ["CLibPNG"],
      linkerSettings: [.linkedLibrary("z"), .linkedLibrary("isal")]),
    // Exact cut-line offsets: a C interface to Clipper 6 (Debian's libpolyclipping-dev).
    // libzip (Debian's libzip-dev, for its header), loaded when a 3MF package is made: it
    // brings libcrypto, which cost every command 0.6 ms and 2 MiB at start-up.
    .target(name: "CZip", linkerSettings: [.linkedLibrary("dl")]),
    .target(name: "CClipper", linkerSettings: [.linkedLibrary("polyclipping")]),
    // The library, one target per stage, following the data flow (docs/architecture.md):
    // Support -> Raster -> Geometry -> (Text, Relief, Engrave, Mesh), Model -> (Materials,
    // Relief, Shading) -> Compositing; Codecs where files are read or written; EmbossKit (the
    // request and the pipeline) re-exports them all; EmbossBatch runs requests from rows.
    .target(name: "EmbossSupport", dependencies: ["CSupport", "CGLib"]),
    // Images in memory: planes, masks, RGBA and canvas images.
    .target(name: "EmbossRaster", dependencies: ["EmbossSupport"]),
    // Exact shapes and distances to them: outlines (glyphs' and traced), the distance core
    // the relief, the cut lines and the mesh are built on.
    .target(name: "EmbossGeometry", dependencies: ["EmbossSupport", "EmbossRaster"]),
    // Files of pictures: PNG (libpng), JPEG and WebP read and written, a picture as a mask,
    // pictures compared. Only the stages that read or write files import it.
    .target(
      name: "EmbossCodecs",
      dependencies: ["EmbossSupport", "EmbossRaster", "EmbossGeometry", "CPNG", "CImageFormats"]),
    // Materials as values: surfaces, lights, environments, reliefs and the parameter table.
    .target(name: "EmbossModel", dependencies: ["EmbossSupport"]),
    .target(
      name: "EmbossText",
      dependencies: [
        "EmbossSupport", "EmbossRaster", "EmbossGeometry", "CFreeType", "CFontconfig",
        "CHarfBuzz", "CFriBidi",
      ]),
    .target(
      name: "EmbossRelief",
      dependencies: ["EmbossSupport", "EmbossRaster", "EmbossGeometry", "EmbossModel"]),
    .target(
      name: "EmbossShading",
      dependencies: ["EmbossSupport", "EmbossRaster", "EmbossModel", "EmbossCodecs"]),
    .target(
      name: "EmbossEngrave",
      dependencies: [
        "EmbossSupport", "EmbossRaster", "EmbossGeometry", "EmbossCodecs", "CClipper",
      ]),
    .target(
      name: "EmbossMesh",
      dependencies: [
        "EmbossSupport", "EmbossRaster", "EmbossGeometry", "EmbossModel", "EmbossRelief",
        "EmbossEngrave", "CZip",
      ]),
    .target(
      name: "EmbossCompositing",
      dependencies: [
        "EmbossSupport", "EmbossRaster", "EmbossGeometry", "EmbossModel", "EmbossRelief",
        "EmbossShading",
      ]),
    .target(
      name: "EmbossMaterials",
      dependencies: ["EmbossSupport", "EmbossModel", .product(name: "Yams", package: "Yams")]),
    .target(
      name: "EmbossKit",
      dependencies: [
        "EmbossSupport", "EmbossRaster", "EmbossGeometry", "EmbossCodecs", "EmbossModel",
        "EmbossText", "EmbossRelief", "EmbossShading", "EmbossEngrave", "EmbossCompositing",
        "EmbossMaterials", "EmbossMesh",
      ]
    ),
    // A batch: rows (CSV or JSON Lines) -> requests -> outputs, a manifest, gang sheets.
    .target(
      name: "EmbossBatch",
      dependencies: ["EmbossKit", .product(name: "CSV", package: "CSV.swift")]
    ),
    // `emboss studio`: the live material editor, served to a browser on this machine.
    .target(
      name: "EmbossStudio",
      dependencies: [
        "EmbossKit", "CSupport", .product(name: "FlyingFox", package: "FlyingFox"),
      ],
      resources: [
        .embedInCode("Assets/studio.html"), .embedInCode("Assets/studio.js"),
        .embedInCode("Assets/studio.css"),
      ]
    ),
    .target(
      name: "EmbossSnapshotTesting",
      dependencies: [
        "EmbossKit", .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
      ]
    ),
    // Process-level C support: allocator tuning, temporary files removed on signals.
    .target(name: "CSupport"),
    .executableTarget(
      name: "emboss",
      dependencies: [
        "EmbossKit", "EmbossBatch", "CSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // Not linked into emboss: its HTTP library links Foundation's networking (libcurl and
    // about thirty more libraries), which cost every command 8 ms and 7 MB at start-up.
    .executableTarget(
      name: "emboss-studio", dependencies: ["EmbossKit", "EmbossStudio", "CSupport"]),
    .testTarget(
      name: "EmbossKitTests",
      dependencies: [
        "EmbossKit", "EmbossSupport", "EmbossRaster", "EmbossCodecs", "EmbossText",
        "EmbossEngrave", "EmbossCompositing", "EmbossMaterials", "EmbossShading",
        "EmbossSnapshotTesting", "EmbossBatch",
        .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
      ],
      exclude: ["__Snapshots__", "FuzzRegressions", "Fixtures"]
    ),
    .testTarget(
      name: "EmbossStudioTests",
      dependencies: ["EmbossStudio", "EmbossKit"]
    ),
    .testTarget(
      name: "EmbossCLITests",
      dependencies: ["emboss", "EmbossKit", "EmbossBatch"],
      exclude: ["Fixtures"]
    ),
  ]
)

// The thread sanitizer's pass in .ci/run tests the library and the studio, where the threads
// are (the pipeline's bands, caches, batches, the studio's server): without the command
// line's tests, whose emboss processes under TSan took most of CI's time.
if ProcessInfo.processInfo.environment["EMBOSS_LIBRARY_TESTS_ONLY"] != nil {
  package.targets.removeAll { $0.name == "EmbossCLITests" }
}

// Fuzz targets (see Fuzz/README.md), only when asked for: they need -sanitize=fuzzer to link.
if ProcessInfo.processInfo.environment["EMBOSS_FUZZ"] != nil {
  for name in ["FuzzPNG", "FuzzMaterial", "FuzzText", "FuzzRender", "FuzzRequest"] {
    package.targets.append(
      .executableTarget(
        name: name,
        dependencies: name == "FuzzRequest" ? ["EmbossKit", "EmbossBatch"] : ["EmbossKit"],
        path: "Fuzz/\(name)",
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
  }
}
