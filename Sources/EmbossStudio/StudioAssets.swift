/// The page's files, compiled into the binary (SwiftPM `embedInCode`): the studio needs no
/// file at run time and nothing from the network.
import Foundation

enum StudioAssets {
  static let script = String(decoding: PackageResources.studio_js, as: UTF8.self)
  static let style = String(decoding: PackageResources.studio_css, as: UTF8.self)

  /// The page, its asset addresses carrying the token.
  static func html(token: String) -> String {
    String(decoding: PackageResources.studio_html, as: UTF8.self)
      .replacingOccurrences(of: "{{TOKEN}}", with: token)
  }
}
