import CFriBidi

/// The paragraph direction of each line: from its first strong character (`auto`, as
/// HTML's `dir=auto`), or given.
public enum TextDirection: String, Sendable, CaseIterable {
  case auto, ltr, rtl
}

/// The Unicode Bidirectional Algorithm (UAX #9) through FriBidi: embedding levels for one
/// line (a paragraph of its own), and the visual order of runs (rule L2).
enum Bidi {
  /// Each character's embedding level (odd: right to left), and whether the paragraph is
  /// right to left.
  ///
  /// Trailing whitespace takes the paragraph's level (rule L1).
  static func levels(_ codes: [UInt32], direction: TextDirection) -> (levels: [Int], rtl: Bool) {
    let count = codes.count
    guard count > 0 else { return ([], direction == .rtl) }
    var types = [FriBidiCharType](repeating: FriBidiCharType(rawValue: 0), count: count)
    var brackets = [FriBidiBracketType](repeating: 0, count: count)
    var levels = [FriBidiLevel](repeating: 0, count: count)
    fribidi_get_bidi_types(codes, FriBidiStrIndex(count), &types)
    fribidi_get_bracket_types(codes, FriBidiStrIndex(count), types, &brackets)
    var paragraph: FriBidiParType
    switch direction {
    case .auto: paragraph = emboss_fribidi_par_auto()
    case .ltr: paragraph = emboss_fribidi_par_ltr()
    case .rtl: paragraph = emboss_fribidi_par_rtl()
    }
    let ok = fribidi_get_par_embedding_levels_ex(
      types, brackets, FriBidiStrIndex(count), &paragraph, &levels)
    let rtl = emboss_fribidi_par_is_rtl(paragraph) != 0
    let base = rtl ? 1 : 0
    guard ok != 0 else { return ([Int](repeating: base, count: count), rtl) }
    var result = levels.map { Int($0) }
    var i = count - 1
    while i >= 0, emboss_fribidi_is_trailing_neutral(types[i]) != 0 {
      result[i] = base
      i -= 1
    }
    return (result, rtl)
  }

  /// The visual order of runs given in logical order with their levels: from the highest
  /// level down to the lowest odd one, every maximal sequence at that level or above is
  /// reversed (rule L2).
  static func visualOrder(levels: [Int]) -> [Int] {
    var order = Array(levels.indices)
    guard let highest = levels.max(), let lowestOdd = levels.filter({ $0 % 2 == 1 }).min()
    else { return order }
    var level = highest
    while level >= lowestOdd {
      var i = 0
      while i < order.count {
        guard levels[order[i]] >= level else {
          i += 1
          continue
        }
        var j = i
        while j < order.count, levels[order[j]] >= level { j += 1 }
        order[i..<j].reverse()
        i = j
      }
      level -= 1
    }
    return order
  }
}
