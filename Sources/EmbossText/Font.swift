import CFreeType
import CHarfBuzz
import EmbossRaster
import EmbossSupport
import Foundation

/// A font face loaded through FreeType, from any TTF/OTF (or other format FreeType reads).
///
/// FreeType faces are not thread-safe; a `Font` is used by one stage at a time.
public final class Font: @unchecked Sendable {
  /// The font file's path.
  public let path: String
  /// The face in the file (collections such as `.ttc` hold several).
  public let index: Int
  /// "Family Style", such as "DejaVu Sans Bold".
  public let name: String
  let library: FT_Library
  let face: FT_Face

  /// The file's bytes, which FreeType reads from for the face's life.
  let bytes: UnsafeMutableRawBufferPointer
  /// HarfBuzz's font on the same FreeType face (`hb_ft_face_create_referenced`), with
  /// HarfBuzz's own OpenType metrics at `shapingScale` units per em: exact unhinted
  /// positions, whatever size FreeType is set to.
  let shapingFont: OpaquePointer
  /// HarfBuzz units per em: 16 per font unit, so rounding is far below a pixel's 1/64.
  let shapingScale: Double

  /// The largest font file read: 256 MiB (the largest CJK collections are about 120 MiB).
  public static let fileLimit = 256 << 20

  /// Loads face `index` of the file at `path` (read as any other input: a FIFO or a pipe
  /// works, up to `fileLimit`).
  ///
  /// Errors name the path and FreeType's reason. A file `inputs` holds is taken from it.
  public init(path: String, index: Int = 0, inputs: InputSnapshot = InputSnapshot()) throws {
    let data = try inputs.data(path, what: "font", limit: Self.fileLimit)
    guard !data.isEmpty else { throw EmbossError("font file '\(path)' is empty") }
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
    _ = data.copyBytes(to: bytes.bindMemory(to: UInt8.self))
    let start = bytes.bindMemory(to: FT_Byte.self).baseAddress
    var library: FT_Library?
    var status = FT_Init_FreeType(&library)
    guard status == 0, let library else {
      bytes.deallocate()
      throw EmbossError("cannot start FreeType: \(FreeTypeError.message(status))")
    }
    // A face index past the collection's end is named as such, not as FreeType's error.
    var probe: FT_Face?
    if index > 0, FT_New_Memory_Face(library, start, FT_Long(data.count), -1, &probe) == 0,
      let probe
    {
      let faces = Int(probe.pointee.num_faces)
      FT_Done_Face(probe)
      guard index & 0xFFFF < faces else {
        FT_Done_FreeType(library)
        bytes.deallocate()
        throw EmbossError(
          "font '\(path)' has \(faces) face\(faces == 1 ? "" : "s") (index 0...\(faces - 1)); there is no face \(index & 0xFFFF)"
        )
      }
    }
    var face: FT_Face?
    status = FT_New_Memory_Face(
      library, start, FT_Long(data.count), FT_Long(max(index, 0)), &face)
    guard status == 0, let face else {
      FT_Done_FreeType(library)
      bytes.deallocate()
      // A file too short for any format's header ends in a stream error (0x50-0x56) when read
      // from memory: it is not a font.
      let reason =
        (0x50...0x56).contains(status) ? FreeTypeError.message(0x02) : FreeTypeError.message(status)
      throw EmbossError("cannot load font '\(path)': \(reason)")
    }
    guard face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0 else {
      FT_Done_Face(face)
      FT_Done_FreeType(library)
      bytes.deallocate()
      throw EmbossError(
        "cannot use font '\(path)': it is a bitmap font; a scalable (outline) font is needed")
    }
    // Shaping reads the font's OpenType tables: a Type 1 (or bare CFF, PFR) font has none, so
    // every character would map to no glyph and the text render no ink.
    guard face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SFNT) != 0 else {
      let format = FT_Get_Font_Format(face).map { String(cString: $0) } ?? "non-OpenType"
      FT_Done_Face(face)
      FT_Done_FreeType(library)
      bytes.deallocate()
      throw EmbossError(
        "cannot use font '\(path)': it is a \(format) font; emboss reads TrueType and OpenType fonts (.ttf, .otf, .ttc)"
      )
    }
    self.path = path
    self.index = index
    self.bytes = bytes
    self.library = library
    self.face = face
    let shapingFace = hb_ft_face_create_referenced(face)
    shapingFont = hb_font_create(shapingFace)
    let unitsPerEm = Int32(clamping: max(1, hb_face_get_upem(shapingFace)))
    hb_face_destroy(shapingFace)
    hb_ot_font_set_funcs(shapingFont)
    hb_font_set_scale(shapingFont, unitsPerEm * 16, unitsPerEm * 16)
    shapingScale = Double(unitsPerEm) * 16
    let family = face.pointee.family_name.map { String(cString: $0) } ?? "unknown"
    let style = face.pointee.style_name.map { String(cString: $0) } ?? ""
    self.name = style.isEmpty || style == "Regular" ? family : "\(family) \(style)"
  }

  deinit {
    hb_font_destroy(shapingFont)
    FT_Done_Face(face)
    FT_Done_FreeType(library)
    bytes.deallocate()
  }

  /// The glyph index for a character, or nil when the font has none.
  func glyphIndex(for scalar: Unicode.Scalar) -> UInt32? {
    let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
    return index == 0 ? nil : index
  }

  var hasKerning: Bool { face.pointee.face_flags & FT_Long(FT_FACE_FLAG_KERNING) != 0 }

  /// Whether the font has a glyph for every one of these characters.
  func covers(_ scalars: [Unicode.Scalar]) -> Bool {
    scalars.allSatisfy { glyphIndex(for: $0) != nil }
  }

  /// A glyph's name in the font (`f_f_i`, `uniFEB3`), or nil when the font names none.
  func glyphName(_ glyph: UInt32) -> String? {
    guard face.pointee.face_flags & FT_Long(FT_FACE_FLAG_GLYPH_NAMES) != 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: 256)
    guard FT_Get_Glyph_Name(face, glyph, &buffer, FT_UInt(buffer.count)) == 0 else { return nil }
    return cString(buffer)
  }

  var isBold: Bool { face.pointee.style_flags & FT_Long(FT_STYLE_FLAG_BOLD) != 0 }
  var isItalic: Bool { face.pointee.style_flags & FT_Long(FT_STYLE_FLAG_ITALIC) != 0 }

  /// The weight the face is set at (400 regular, 700 bold, 900 black): a variable font's
  /// `wght` as its instance and variations set it, else the OS/2 table's weight class, else
  /// 700 for a face flagged bold and 400 otherwise.
  var weight: Double {
    let axes = self.axes
    if let w = axes.firstIndex(where: { $0.tag == "wght" }) {
      var coords = [FT_Fixed](repeating: 0, count: axes.count)
      if FT_Get_Var_Design_Coordinates(face, FT_UInt(axes.count), &coords) == 0 {
        return Double(coords[w]) / 65536
      }
    }
    if let table = FT_Get_Sfnt_Table(face, FT_SFNT_OS2) {
      let os2 = table.assumingMemoryBound(to: TT_OS2.self)
      if os2.pointee.version != 0xFFFF, os2.pointee.usWeightClass > 0 {
        return Double(os2.pointee.usWeightClass)
      }
    }
    return isBold ? 700 : 400
  }

  /// Sets FreeType's size for outlines (shaping does not depend on it).
  func setPixelSize(_ pixelSize: Float) throws {
    let size = FT_F26Dot6((Double(pixelSize) * 64).rounded())
    let status = FT_Set_Char_Size(face, 0, size, 72, 72)
    guard status == 0 else {
      throw EmbossError(
        "cannot set font '\(path)' to \(pixelSize) px: \(FreeTypeError.message(status))")
    }
  }

  /// The height of the font's capitals as a fraction of the em, what `--cap-height` sets.
  ///
  /// It is the OS/2 table's `sCapHeight` (table version 2 and up) when the font gives one,
  /// otherwise the top of the H's outline above the baseline (in the variation instance
  /// last applied); nil when the font has neither.
  public var capHeight: Double? {
    let unitsPerEm = Double(face.pointee.units_per_EM)
    guard unitsPerEm > 0 else { return nil }
    // FreeType marks a font without an OS/2 table with version 0xFFFF.
    if let table = FT_Get_Sfnt_Table(face, FT_SFNT_OS2) {
      let os2 = table.assumingMemoryBound(to: TT_OS2.self).pointee
      if os2.version >= 2, os2.version != 0xFFFF, os2.sCapHeight > 0 {
        return Double(os2.sCapHeight) / unitsPerEm
      }
    }
    guard let glyph = glyphIndex(for: "H"),
      FT_Load_Glyph(face, glyph, FT_Int32(FT_LOAD_NO_SCALE | FT_LOAD_NO_BITMAP)) == 0,
      let slot = face.pointee.glyph, slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE
    else { return nil }
    var box = FT_BBox()
    guard FT_Outline_Get_BBox(&slot.pointee.outline, &box) == 0, box.yMax > 0 else { return nil }
    return Double(box.yMax) / unitsPerEm
  }

  /// The font's variation axes (empty for a font that is not variable).
  public var axes: [FontAxis] {
    let shapingFace = hb_font_get_face(shapingFont)
    var count = hb_ot_var_get_axis_count(shapingFace)
    guard count > 0 else { return [] }
    var infos = [hb_ot_var_axis_info_t](repeating: hb_ot_var_axis_info_t(), count: Int(count))
    _ = hb_ot_var_get_axis_infos(shapingFace, 0, &count, &infos)
    return infos.prefix(Int(count)).map {
      FontAxis(
        tag: FontTag.string($0.tag), minimum: Double($0.min_value),
        defaultValue: Double($0.default_value), maximum: Double($0.max_value))
    }
  }

  /// The OpenType layout features the font has (GSUB and GPOS), as four-letter tags.
  public var featureTags: Set<String> {
    let shapingFace = hb_font_get_face(shapingFont)
    var tags = Set<String>()
    for table in ["GSUB", "GPOS"] {
      let tableTag = FontTag.tag(table)
      var count = hb_ot_layout_table_get_feature_tags(shapingFace, tableTag, 0, nil, nil)
      guard count > 0 else { continue }
      var found = [hb_tag_t](repeating: 0, count: Int(count))
      _ = hb_ot_layout_table_get_feature_tags(shapingFace, tableTag, 0, &count, &found)
      // Registered and private tags alike, but not HarfBuzz-internal ones (" RQD").
      for tag in found.prefix(Int(count)) where !FontTag.string(tag).hasPrefix(" ") {
        tags.insert(FontTag.string(tag))
      }
    }
    if hasKerning { tags.insert("kern") }
    return tags
  }

  /// Applies variation axis values to shaping and outlines alike.
  ///
  /// They apply on top of the named
  /// instance the face index chose (fontconfig's `Inter:style=Black` is face 0, instance 9:
  /// index `9 << 16`). HarfBuzz's normalized coordinates (2.14) become FreeType's blend
  /// coordinates (16.16), as hb-ft does. Axes the font lacks are ignored here
  /// (`FontVariations.check` refuses them for the chosen font).
  func apply(_ variations: FontVariations) {
    let axes = self.axes
    guard !axes.isEmpty else { return }
    let instance = index >> 16
    guard instance > 0 || !variations.values.isEmpty else { return }
    var values: [hb_variation_t] = []
    if instance > 0 {
      var count = UInt32(axes.count)
      var coords = [Float](repeating: 0, count: axes.count)
      let shapingFace = hb_font_get_face(shapingFont)
      if hb_ot_var_named_instance_get_design_coords(
        shapingFace, UInt32(instance - 1), &count, &coords) > 0
      {
        for (axis, value) in zip(axes, coords.prefix(Int(count))) {
          values.append(hb_variation_t(tag: FontTag.tag(axis.tag), value: value))
        }
      }
    }
    values += variations.values.map { hb_variation_t(tag: $0.tag, value: $0.value) }
    hb_font_set_variations(shapingFont, values, UInt32(values.count))
    var length: UInt32 = 0
    guard let coords = hb_font_get_var_coords_normalized(shapingFont, &length), length > 0 else {
      return
    }
    var blend = (0..<Int(length)).map { FT_Fixed(coords[$0]) * 4 }
    _ = FT_Set_Var_Blend_Coordinates(face, FT_UInt(length), &blend)
  }
}

/// A variation axis of a variable font (`wght` 100...900).
public struct FontAxis: Sendable, Equatable {
  /// The axis tag (`wght`, `wdth`, `opsz`).
  public var tag: String
  /// The smallest value.
  public var minimum: Double
  /// The value when none is given.
  public var defaultValue: Double
  /// The largest value.
  public var maximum: Double
}

/// OpenType tags as text.
enum FontTag {
  static func tag(_ text: String) -> hb_tag_t { text.withCString { hb_tag_from_string($0, -1) } }

  static func string(_ tag: hb_tag_t) -> String {
    String(
      decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: tag >> $0) }, as: UTF8.self)
  }
}

/// FreeType's error codes as text.
///
/// Debian's FreeType is built without error strings
/// (`FT_Error_String` returns NULL), so we keep our own table of the codes users meet.
enum FreeTypeError {
  static let messages: [Int32: String] = [
    0x01: "cannot open resource",
    0x02: "unknown file format (not a font FreeType can read)",
    0x03: "broken file",
    0x04: "invalid FreeType version",
    0x05: "module version is too low",
    0x06: "invalid argument",
    0x07: "unimplemented feature",
    0x08: "broken table",
    0x09: "broken offset within table",
    0x0A: "array allocation size too large",
    0x0B: "missing module",
    0x0C: "missing property",
    0x10: "invalid glyph index",
    0x11: "invalid character code",
    0x12: "unsupported glyph image format",
    0x13: "cannot render this glyph format",
    0x14: "invalid outline",
    0x15: "invalid composite glyph",
    0x16: "too many hints",
    0x17: "invalid pixel size",
    0x18: "invalid SVG document",
    0x20: "invalid object handle",
    0x21: "invalid library handle",
    0x22: "invalid module handle",
    0x23: "invalid face handle",
    0x24: "invalid size handle",
    0x25: "invalid glyph slot handle",
    0x26: "invalid charmap handle",
    0x27: "invalid cache manager handle",
    0x28: "invalid stream handle",
    0x30: "too many modules",
    0x31: "too many extensions",
    0x40: "out of memory",
    0x41: "unlisted object",
    0x51: "cannot open stream",
    0x52: "invalid stream seek",
    0x53: "invalid stream skip",
    0x54: "invalid stream read",
    0x55: "invalid stream operation",
    0x56: "invalid frame operation",
    0x57: "nested frame access",
    0x58: "invalid frame read",
    0x60: "raster uninitialized",
    0x61: "raster corrupted",
    0x62: "raster overflow",
    0x63: "negative height while rastering",
    0x70: "too many registered caches",
    0x80: "invalid opcode",
    0x81: "too few arguments",
    0x82: "stack overflow",
    0x83: "code overflow",
    0x84: "bad argument",
    0x85: "division by zero",
    0x86: "invalid reference",
    0x8E: "found debug opcode",
    0x8F: "found ENDF opcode in execution stream",
    0x90: "nested DEFS",
    0x91: "invalid code range",
    0x92: "execution context too long",
    0x93: "too many function definitions",
    0x94: "too many instruction definitions",
    0x95: "SFNT font table missing",
    0x96: "horizontal header (hhea) table missing",
    0x97: "locations (loca) table missing",
    0x98: "name table missing",
    0x99: "character map (cmap) table missing",
    0x9A: "horizontal metrics (hmtx) table missing",
    0x9B: "PostScript (post) table missing",
    0x9C: "invalid horizontal metrics",
    0x9D: "invalid character map (cmap) format",
    0x9E: "invalid ppem value",
    0x9F: "invalid vertical metrics",
    0xA0: "could not find context",
    0xA1: "invalid PostScript (post) table format",
    0xA2: "invalid PostScript (post) table",
    0xA3: "found FDEF or IDEF opcode in glyf bytecode",
    0xA4: "missing bitmap in strike",
    0xB0: "opcode syntax error",
    0xB1: "argument stack underflow",
    0xB2: "ignore",
    0xB3: "no Unicode glyph name found",
    0xB4: "glyph too big for hinting",
    0xBA: "`STARTFONT' field missing",
    0xBB: "`FONT' field missing",
    0xBC: "`SIZE' field missing",
    0xBD: "`FONTBOUNDINGBOX' field missing",
    0xBE: "`CHARS' field missing",
    0xBF: "`STARTCHAR' field missing",
    0xC0: "`ENCODING' field missing",
    0xC1: "`BBX' field missing",
    0xC2: "`BBX' too big",
    0xC3: "font header corrupted or missing fields",
    0xC4: "font glyphs corrupted or missing fields",
  ]

  static func message(_ code: FT_Error) -> String {
    messages[code] ?? "FreeType error 0x\(String(code, radix: 16))"
  }
}
