import EmbossSupport

/// The one definition of every material and relief parameter: its key (as written in a
/// material file and in `--set`), type, unit, default, range and one line of help, and the
/// command-line flag that overrides it, if any.
///
/// Everything else reads this table: the material reader and `--set` (ranges, defaults,
/// choices), the spec types' checked initializers, the command-line flags (help and
/// validation), `emboss parameters`, and the key table in docs/materials.md (a test compares
/// it with `Parameters.markdownTable`).
public enum Parameters {
  // MARK: Top level

  /// The `description` parameter.
  ///
  /// One line shown in listings.
  public static let description = TextParameter(
    key: "description", defaultValue: "Neutral gray metal under one white light",
    help: "one line shown in listings")
  /// The `extends` parameter.
  ///
  /// Start from another material: a preset name, or a file relative to this one.
  public static let extends = TextParameter(
    key: "extends", defaultValue: nil,
    help: "start from another material: a preset name, or a file relative to this one")
  /// The `background` parameter.
  ///
  /// What the text is composited over: a color (its alpha see-through) or `transparent`.
  public static let background = BackgroundParameter(
    key: "background", defaultValue: .transparent, defaultText: "`transparent`",
    help: "what the text is composited over: a color (`#rrggbbaa` is see-through) or `transparent`",
    flag: "--background")

  // MARK: Surface

  /// The `surface.base` parameter.
  ///
  /// The surface's own color: diffuse color, and the reflection color of a metal.
  public static let base = ColorParameter(
    key: "surface.base", defaultValue: SIMD3(repeating: 0.5), defaultText: "`#bcbcbc` (linear 0.5)",
    help: "the surface's own color: diffuse color, and the reflection color of a metal")
  /// The `surface.specular` parameter.
  ///
  /// Highlight color; with `ggx`, the reflectance facing the viewer (F0: about `#3b3b3b` for
  /// varnish, glass or plastic).
  public static let specular = ColorParameter(
    key: "surface.specular", defaultValue: SIMD3(repeating: 1), defaultText: "`#ffffff`",
    help:
      "highlight color; with `ggx`, the reflectance facing the viewer (F0: about `#3b3b3b` for varnish, glass or plastic)"
  )
  /// The `surface.shininess` parameter.
  ///
  /// Sharpness of highlights and reflections: higher is smaller and sharper (with `ggx`, roughness
  /// alpha = sqrt(2 / (shininess + 2))).
  public static let shininess = NumberParameter(
    key: "surface.shininess", range: 1...2048, defaultValue: 32,
    help:
      "sharpness of highlights and reflections: higher is smaller and sharper (with `ggx`, roughness alpha = sqrt(2 / (shininess + 2)))"
  )
  /// The `surface.ambient` parameter.
  ///
  /// Share of the base color seen without any light.
  public static let ambient = NumberParameter(
    key: "surface.ambient", range: 0...1, defaultValue: 0.1,
    help: "share of the base color seen without any light")
  /// The `surface.metallic` parameter.
  ///
  /// How much highlights and reflections take the base color (1: a metal such as gold); with `ggx`,
  /// the diffuse color fades out as it rises.
  public static let metallic = NumberParameter(
    key: "surface.metallic", range: 0...1, defaultValue: 0,
    help:
      "how much highlights and reflections take the base color (1: a metal such as gold); with `ggx`, the diffuse color fades out as it rises"
  )
  /// The `surface.model` parameter.
  ///
  /// How highlights are computed: the classic (not energy-conserving), or microfacet GGX with Smith
  /// shadowing (energy-conserving: a sharper highlight is also a brighter one).
  public static let model = ChoiceParameter<SpecularModel>(
    key: "surface.model", defaultValue: .blinnPhong,
    help:
      "how highlights are computed: the classic (not energy-conserving), or microfacet GGX with Smith shadowing (energy-conserving: a sharper highlight is also a brighter one)"
  )
  /// The `surface.fresnel` parameter.
  ///
  /// How much highlights and reflections rise toward white at grazing angles (Schlick); 0: the same
  /// at every angle.
  public static let fresnel = NumberParameter(
    key: "surface.fresnel", range: 0...1, defaultValue: 0,
    help:
      "how much highlights and reflections rise toward white at grazing angles (Schlick); 0: the same at every angle"
  )

  // MARK: Lights

  /// The `lights` parameter.
  ///
  /// Replaces the whole list of the material it extends.
  public static let lights = ListParameter(
    key: "lights", defaultText: "one omni light at `[-1, 1, 1.5]`, white, intensity 1",
    rangeText: "at least one", help: "replaces the whole list of the material it extends")
  /// The `lights[].kind` parameter.
  ///
  /// Point light; light from a direction; cone light. Each kind takes only its own keys.
  public static let lightKind = ChoiceParameter<LightKind>(
    key: "lights[].kind", defaultValue: .omni,
    help: "point light; light from a direction; cone light. Each kind takes only its own keys")
  /// The `lights[].position` parameter.
  ///
  /// `omni`, `spot`: where the light is; `distant`: the direction it comes from (not [0, 0, 0]).
  public static let lightPosition = VectorParameter(
    key: "lights[].position", range: -1000...1000, defaultValue: SIMD3(-1, 1, 1.5),
    unit: "sphere radii",
    help:
      "`omni`, `spot`: where the light is; `distant`: the direction it comes from (not [0, 0, 0])")
  /// The `lights[].angle` parameter.
  ///
  /// `distant`, instead of `position`: the direction around the view axis, counterclockwise from
  /// the right (120: top left).
  public static let lightAngle = NumberParameter(
    key: "lights[].angle", range: -360...360, defaultValue: 120, unit: "degrees",
    help:
      "`distant`, instead of `position`: the direction around the view axis, counterclockwise from the right (120: top left)",
    flag: "--light-angle")
  /// The `lights[].altitude` parameter.
  ///
  /// `distant`, with `angle`: the height above the surface (90: straight on).
  public static let lightAltitude = NumberParameter(
    key: "lights[].altitude", range: -90...90, defaultValue: 30, unit: "degrees",
    help: "`distant`, with `angle`: the height above the surface (90: straight on)",
    flag: "--light-altitude")
  /// The `lights[].color` parameter.
  ///
  /// The light's color.
  public static let lightColor = ColorParameter(
    key: "lights[].color", defaultValue: SIMD3(repeating: 1), defaultText: "`#ffffff`",
    help: "the light's color")
  /// The `lights[].intensity` parameter.
  ///
  /// The light's strength.
  public static let lightIntensity = NumberParameter(
    key: "lights[].intensity", range: 0...100, defaultValue: 1, help: "the light's strength")
  /// The `lights[].target` parameter.
  ///
  /// `spot` only: the point the cone's axis passes through.
  public static let lightTarget = VectorParameter(
    key: "lights[].target", range: -1000...1000, defaultValue: .zero, unit: "sphere radii",
    help: "`spot` only: the point the cone's axis passes through")
  /// The `lights[].cone` parameter.
  ///
  /// `spot` only: half-angle of the cone; the edge softens over its outer 20%.
  public static let lightCone = NumberParameter(
    key: "lights[].cone", range: 1...90, defaultValue: 30, unit: "degrees",
    help: "`spot` only: half-angle of the cone; the edge softens over its outer 20%")

  // MARK: Environment

  /// The `environment.intensity` parameter.
  ///
  /// What the surface reflects besides the lights; 0: no environment.
  public static let environmentIntensity = NumberParameter(
    key: "environment.intensity", range: 0...100, defaultValue: 0,
    help: "what the surface reflects besides the lights; 0: no environment")
  /// The `environment.sky` parameter.
  ///
  /// Straight up.
  public static let sky = ColorParameter(
    key: "environment.sky", defaultValue: SIMD3(0.35, 0.5, 0.8), defaultText: "`#a0bce7`",
    help: "straight up")
  /// The `environment.horizon` parameter.
  ///
  /// The sky at the horizon.
  public static let horizon = ColorParameter(
    key: "environment.horizon", defaultValue: SIMD3(0.9, 0.92, 0.95), defaultText: "`#f3f6f9`",
    help: "the sky at the horizon")
  /// The `environment.ground` parameter.
  ///
  /// Below the horizon (and the band).
  public static let ground = ColorParameter(
    key: "environment.ground", defaultValue: SIMD3(0.12, 0.1, 0.08), defaultText: "`#615950`",
    help: "below the horizon (and the band)")
  /// The `environment.band` parameter.
  ///
  /// A band just below the horizon: the dark line across polished chrome.
  public static let band = ColorParameter(
    key: "environment.band", defaultValue: SIMD3(0.02, 0.02, 0.025), defaultText: "`#27272c`",
    help: "a band just below the horizon: the dark line across polished chrome")
  /// The `environment.band-width` parameter.
  ///
  /// The band's height; 0: no band.
  public static let bandWidth = NumberParameter(
    key: "environment.band-width", range: 0...45, defaultValue: 0, unit: "degrees",
    help: "the band's height; 0: no band")
  /// The `environment.horizon-angle` parameter.
  ///
  /// Where the horizon sits relative to what the flat top reflects: -15 puts the top in the sky
  /// just above it.
  public static let horizonAngle = NumberParameter(
    key: "environment.horizon-angle", range: -89...89, defaultValue: 0, unit: "degrees",
    help:
      "where the horizon sits relative to what the flat top reflects: -15 puts the top in the sky just above it"
  )
  /// The `environment.horizon-softness` parameter.
  ///
  /// How gradually the sky turns into the ground (and the band's edges): 0 a sharp line.
  public static let horizonSoftness = NumberParameter(
    key: "environment.horizon-softness", range: 0...45, defaultValue: 0, unit: "degrees",
    help:
      "how gradually the sky turns into the ground (and the band's edges), as an angle either side of the line; 0: a sharp line"
  )
  /// The `environment.softboxes` parameter.
  ///
  /// Soft rectangular area lights the surface reflects.
  public static let softboxes = ListParameter(
    key: "environment.softboxes", defaultText: "none", rangeText: "",
    help: "soft rectangular area lights the surface reflects")
  /// The `environment.softboxes[].angle` parameter.
  ///
  /// Where the box is around the view axis, as for lights.
  public static let softboxAngle = NumberParameter(
    key: "environment.softboxes[].angle", range: -360...360, defaultValue: 120, unit: "degrees",
    help: "where the box is around the view axis, as for lights")
  /// The `environment.softboxes[].altitude` parameter.
  ///
  /// The box's height above the surface (90: facing the viewer).
  public static let softboxAltitude = NumberParameter(
    key: "environment.softboxes[].altitude", range: -90...90, defaultValue: 45, unit: "degrees",
    help: "the box's height above the surface (90: facing the viewer)")
  /// The `environment.softboxes[].width` parameter.
  ///
  /// Its width as seen from the surface.
  public static let softboxWidth = NumberParameter(
    key: "environment.softboxes[].width", range: 1...180, defaultValue: 30, unit: "degrees",
    help: "its width as seen from the surface")
  /// The `environment.softboxes[].height` parameter.
  ///
  /// Its height as seen from the surface.
  public static let softboxHeight = NumberParameter(
    key: "environment.softboxes[].height", range: 1...180, defaultValue: 20, unit: "degrees",
    help: "its height as seen from the surface")
  /// The `environment.softboxes[].color` parameter.
  ///
  /// Its color.
  public static let softboxColor = ColorParameter(
    key: "environment.softboxes[].color", defaultValue: SIMD3(repeating: 1),
    defaultText: "`#ffffff`",
    help: "its color")
  /// The `environment.softboxes[].intensity` parameter.
  ///
  /// Its strength.
  public static let softboxIntensity = NumberParameter(
    key: "environment.softboxes[].intensity", range: 0...100, defaultValue: 1,
    help: "its strength")

  // MARK: Relief

  /// The `relief.radius` parameter.
  ///
  /// Distance from the edge at which the bevel reaches the plateau; a material's value is for
  /// text at 160 px and scales with the text's size, a value given for a render does not (on
  /// the command line a length: px, or mm/cm/in/pt with --dpi).
  public static let radius = NumberParameter(
    key: "relief.radius", range: 0.5...1000, defaultValue: 10, unit: "pixels",
    help:
      "distance from the edge at which the bevel reaches the plateau; a material's value is for text at 160 px and scales with the text's size, a value given for a render does not (on the command line a length: px, or mm/cm/in/pt with --dpi)",
    flag: "--radius")
  /// The `relief.profile` parameter.
  ///
  /// Fillet (quarter circle), chisel (straight), S-curve; Photoshop's Chisel Hard (= `linear`) and
  /// Chisel Soft (the chisel with creases rounded: soften of at least 15% of the radius); inflated
  /// (swollen as a balloon or a liquid: round across every stroke, no crease).
  public static let profile = ChoiceParameter<ReliefProfile>(
    key: "relief.profile", defaultValue: .round,
    help:
      "fillet (quarter circle), chisel (straight), S-curve; Photoshop's Chisel Hard (= `linear`) and Chisel Soft (the chisel with creases rounded: soften of at least 15% of the radius); inflated (swollen as a balloon or a liquid: round across every stroke, no crease; the radius caps the swell)",
    flag: "--profile")
  /// The `relief.depth` parameter.
  ///
  /// The plateau's height: a multiple of the radius (`1.5` or `1.5x`), which keeps the look at any
  /// resolution, or pixels (`12px`; on the command line any length).
  public static let depth = NumberParameter(
    key: "relief.depth", range: 0...100, defaultValue: 1, unit: "x radius",
    help:
      "the plateau's height: a multiple of the radius (`1.5` or `1.5x`), which keeps the look at any resolution, or pixels (`12px`; on the command line any length)",
    flag: "--relief-depth")
  /// The `relief.scale` parameter.
  ///
  /// Instead of `depth`: Core Image's `inputScale`, the slopes of the 0...1 height field per pixel
  /// times this (steeper at lower resolution); at radius 10, `depth: 1` is `scale: 10`.
  public static let scale = NumberParameter(
    key: "relief.scale", range: 0...1000, defaultValue: nil,
    help:
      "instead of `depth`: Core Image's `inputScale`, the slopes of the 0...1 height field per pixel times this (steeper at lower resolution); at radius 10, `depth: 1` is `scale: 10`",
    flag: "--scale")
  /// The `relief.soften` parameter.
  ///
  /// Blur of the relief (standard deviation): rounds creases and the top edge; scales with the
  /// text as the radius does (on the command line a length).
  public static let soften = NumberParameter(
    key: "relief.soften", range: 0...1000, defaultValue: 0, unit: "pixels",
    help:
      "blur of the relief (standard deviation): rounds creases and the top edge; scales with the text as the radius does (on the command line a length)",
    flag: "--soften")
  /// The `relief.round-corners` parameter.
  ///
  /// Rounds every corner of the ink's outline, outside and inside, before the relief rises.
  public static let roundCorners = NumberParameter(
    key: "relief.round-corners", range: 0...1000, defaultValue: 0, unit: "pixels",
    help:
      "rounds every corner of the ink's outline, outside and inside, to this radius before the relief rises, as a liquid's surface tension or a casting would: a stroke's square end becomes a half circle (a rounding reaches at most half way along each side, so no stroke vanishes); scales with the text as the radius does; text only (a picture's mask is kept)"
  )
  /// The `relief.direction` parameter.
  ///
  /// Embossed or debossed.
  public static let direction = ChoiceParameter<ReliefDirection>(
    key: "relief.direction", defaultValue: .raised, help: "embossed or debossed",
    flag: "--direction")
  /// The `relief.inside-corners` parameter.
  ///
  /// At an inside corner of the ink: `round`, the bevel turns around the corner (the exact
  /// distance); `mitre`, the two faces meet in a sharp seam on the corner's bisector, as a
  /// chamfer or a carved letter has it (a corner whose mitre would reach past 10 radii, a turn over 168 degrees, stays round).
  public static let insideCorners = ChoiceParameter<InsideCorners>(
    key: "relief.inside-corners", defaultValue: .round,
    help:
      "at an inside corner of the ink: `round`, the bevel turns around the corner (the exact distance); `mitre`, the two faces meet in a sharp seam on the corner's bisector, as a chamfer or a carved letter has it (a corner whose mitre would reach past 10 radii, a turn over 168 degrees, stays round)"
  )

  // MARK: Shadow

  /// The `shadow.opacity` parameter.
  ///
  /// How dark the letters' shadow is (0: none): a raised relief casts it on what it stands
  /// on, a lowered one's walls cast it into the letters.
  public static let shadowOpacity = NumberParameter(
    key: "shadow.opacity", range: 0...1, defaultValue: 0,
    help:
      "how dark the letters' shadow is (0: none): a raised relief casts it on what it stands on, a lowered one's walls cast it into the letters"
  )
  /// The `shadow.distance` parameter.
  ///
  /// How far the shadow falls from the letters, away from the light; a material's value is for
  /// text at 160 px and scales with the text's size, as the radius does.
  public static let shadowDistance = NumberParameter(
    key: "shadow.distance", range: 0...1000, defaultValue: 6, unit: "pixels",
    help:
      "how far the shadow falls from the letters, away from the light; a material's value is for text at 160 px and scales with the text's size, as the radius does"
  )
  /// The `shadow.softness` parameter.
  ///
  /// The shadow's blur (standard deviation); scales with the text as the radius does.
  public static let shadowSoftness = NumberParameter(
    key: "shadow.softness", range: 0...1000, defaultValue: 5, unit: "pixels",
    help: "the shadow's blur (standard deviation); scales with the text as the radius does")
  /// The `shadow.color` parameter.
  ///
  /// The shadow's color.
  public static let shadowColor = ColorParameter(
    key: "shadow.color", defaultValue: .zero, defaultText: "`#000000`",
    help: "the shadow's color")
  /// The `shadow.angle` parameter.
  ///
  /// Where the light that casts it comes from, counterclockwise from the right (120: top
  /// left); default: the brightest light's direction.
  public static let shadowAngle = NumberParameter(
    key: "shadow.angle", range: -360...360, defaultValue: nil, unit: "degrees",
    help:
      "where the light that casts it comes from, counterclockwise from the right (120: top left); default: the brightest light's direction"
  )

  // MARK: Occlusion

  /// The `occlusion.strength` parameter.
  ///
  /// How much light the relief keeps from what is near it (0: none): inner corners, narrow
  /// counters and the foot of a raised relief (the top of a lowered one's walls) darken, as
  /// ambient light reaches them less.
  public static let occlusionStrength = NumberParameter(
    key: "occlusion.strength", range: 0...1, defaultValue: 0,
    help:
      "how much light the relief keeps from what is near it (0: none): inner corners, narrow counters and the foot of a raised relief (the top of a lowered one's walls) darken, as ambient light reaches them less"
  )
  /// The `occlusion.radius` parameter.
  ///
  /// How far around a point the relief is felt; a material's value is for text at 160 px and
  /// scales with the text's size, as the radius does.
  public static let occlusionRadius = NumberParameter(
    key: "occlusion.radius", range: 0.5...1000, defaultValue: 8, unit: "pixels",
    help:
      "how far around a point the relief is felt; a material's value is for text at 160 px and scales with the text's size, as the radius does"
  )

  // MARK: Detail

  /// The `detail.brushed` parameter.
  ///
  /// Brushed metal (0: none, 1: coarse): fine lines along the grain, grouped in broader
  /// bands, each tilting the surface a little and shading it (up to 35% brighter or darker at
  /// 1), and highlights stretched across the grain, as a brushed surface spreads them.
  public static let detailBrushed = NumberParameter(
    key: "detail.brushed", range: 0...1, defaultValue: 0,
    help:
      "brushed metal (0: none, 1: coarse): fine lines along the grain, grouped in broader bands, each tilting the surface a little and shading it (up to 35% brighter or darker at 1), and highlights stretched across the grain, as a brushed surface spreads them"
  )
  /// The `detail.brushed-angle` parameter.
  ///
  /// The grain's direction, counterclockwise from the right (0: horizontal lines).
  public static let detailBrushedAngle = NumberParameter(
    key: "detail.brushed-angle", range: -360...360, defaultValue: 0, unit: "degrees",
    help: "the grain's direction, counterclockwise from the right (0: horizontal lines)")
  /// The `detail.brushed-width` parameter.
  ///
  /// How far apart the lines are; a material's value is for text at 160 px and scales with
  /// the text's size, as the radius does.
  public static let detailBrushedWidth = NumberParameter(
    key: "detail.brushed-width", range: 0.05...1000, defaultValue: 1.5, unit: "pixels",
    help:
      "how far apart the lines are; a material's value is for text at 160 px and scales with the text's size, as the radius does"
  )
  /// The `detail.brushed-length` parameter.
  ///
  /// How far a fine line runs, in line widths, before it fades out and another takes its
  /// place; its strength changes about every third of that.
  public static let detailBrushedLength = NumberParameter(
    key: "detail.brushed-length", range: 2...1000, defaultValue: 25,
    help:
      "how far a fine line runs, in line widths, before it fades out and another takes its place; its strength changes about every third of that"
  )
  /// The `detail.hammered` parameter.
  ///
  /// Hammered metal (0: none, 1: deep): round dents side by side, each a shallow dish whose
  /// sides tilt the surface, meeting in fine ridges.
  public static let detailHammered = NumberParameter(
    key: "detail.hammered", range: 0...1, defaultValue: 0,
    help:
      "hammered metal (0: none, 1: deep): round dents side by side, each a shallow dish whose sides tilt the surface, meeting in fine ridges"
  )
  /// The `detail.hammered-size` parameter.
  ///
  /// About how wide a dent is; a material's value is for text at 160 px and scales with the
  /// text's size, as the radius does.
  public static let detailHammeredSize = NumberParameter(
    key: "detail.hammered-size", range: 0.5...1000, defaultValue: 10, unit: "pixels",
    help:
      "about how wide a dent is; a material's value is for text at 160 px and scales with the text's size, as the radius does"
  )
  /// The `detail.sandblasted` parameter.
  ///
  /// A sandblasted (matte) grain (0: none, 1: rough): a fine random tilt that softens and
  /// spreads every reflection, as bead-blasted metal or matte plastic does.
  public static let detailSandblasted = NumberParameter(
    key: "detail.sandblasted", range: 0...1, defaultValue: 0,
    help:
      "a sandblasted (matte) grain (0: none, 1: rough): a fine random tilt that softens and spreads every reflection, as bead-blasted metal or matte plastic does"
  )
  /// The `detail.sandblasted-size` parameter.
  ///
  /// The grain's size; scales with the text as the radius does.
  public static let detailSandblastedSize = NumberParameter(
    key: "detail.sandblasted-size", range: 0.05...1000, defaultValue: 0.8, unit: "pixels",
    help: "the grain's size; scales with the text as the radius does")
  /// The `detail.waviness` parameter.
  ///
  /// A polished surface's slow waviness (0: flat, 1: wavy): broad, smooth undulations that
  /// bend its reflections across flat faces, as plated or cast letters show, with no blur.
  public static let detailWaviness = NumberParameter(
    key: "detail.waviness", range: 0...1, defaultValue: 0,
    help:
      "a polished surface's slow waviness (0: flat, 1: wavy): broad, smooth undulations that bend its reflections across flat faces, as plated or cast letters show, with no blur"
  )
  /// The `detail.waviness-size` parameter.
  ///
  /// About how wide an undulation is; a material's value is for text at 160 px and scales
  /// with the text's size, as the radius does.
  public static let detailWavinessSize = NumberParameter(
    key: "detail.waviness-size", range: 2...2000, defaultValue: 200, unit: "pixels",
    help:
      "about how wide an undulation is; a material's value is for text at 160 px and scales with the text's size, as the radius does"
  )
  /// The `detail.grain` parameter.
  ///
  /// Wood grain (0: none, 1: strong): long wavy lines of the grain's color across the surface.
  public static let detailGrain = NumberParameter(
    key: "detail.grain", range: 0...1, defaultValue: 0,
    help: "wood grain (0: none, 1: strong): long wavy lines of the grain's color across the surface"
  )
  /// The `detail.grain-spacing` parameter.
  ///
  /// How far apart the grain's lines are; scales with the text as the radius does.
  public static let detailGrainSpacing = NumberParameter(
    key: "detail.grain-spacing", range: 0.5...1000, defaultValue: 7, unit: "pixels",
    help: "how far apart the grain's lines are; scales with the text as the radius does")
  /// The `detail.grain-angle` parameter.
  ///
  /// The grain's direction, counterclockwise from the right (0: horizontal).
  public static let detailGrainAngle = NumberParameter(
    key: "detail.grain-angle", range: -360...360, defaultValue: 0, unit: "degrees",
    help: "the grain's direction, counterclockwise from the right (0: horizontal)")
  /// The `detail.grain-figure` parameter.
  ///
  /// How much the grain's lines wave and swirl (0: straight, parallel lines).
  public static let detailGrainFigure = NumberParameter(
    key: "detail.grain-figure", range: 0...1, defaultValue: 0.5,
    help: "how much the grain's lines wave and swirl (0: straight, parallel lines)")
  /// The `detail.grain-color` parameter.
  ///
  /// The color of the grain's dark lines, as `surface.base` is the wood's own color.
  public static let detailGrainColor = ColorParameter(
    key: "detail.grain-color", defaultValue: SIMD3(0.117, 0.0497, 0.0185), defaultText: "`#603f25`",
    help: "the color of the grain's dark lines, as `surface.base` is the wood's own color")
  /// The `detail.speckle` parameter.
  ///
  /// Stone's speckle (0: none, 1: strong): dark and light flecks and a faint mottle.
  public static let detailSpeckle = NumberParameter(
    key: "detail.speckle", range: 0...1, defaultValue: 0,
    help: "stone's speckle (0: none, 1: strong): dark and light flecks and a faint mottle")
  /// The `detail.speckle-size` parameter.
  ///
  /// About how wide a fleck is; scales with the text as the radius does.
  public static let detailSpeckleSize = NumberParameter(
    key: "detail.speckle-size", range: 0.25...1000, defaultValue: 1.5, unit: "pixels",
    help: "about how wide a fleck is; scales with the text as the radius does")
  /// The `detail.speckle-color` parameter.
  ///
  /// The dark flecks' color, as `surface.base` is the stone's own color.
  public static let detailSpeckleColor = ColorParameter(
    key: "detail.speckle-color", defaultValue: SIMD3(repeating: 0.0296), defaultText: "`#303030`",
    help: "the dark flecks' color, as `surface.base` is the stone's own color")
  /// The `detail.seed` parameter.
  ///
  /// Which pattern of the procedural detail: the same seed gives the same lines on every
  /// render and every row of a batch.
  public static let detailSeed = IntegerParameter(
    key: "detail.seed", range: 0...1_000_000, defaultValue: 1, unit: "",
    help:
      "which pattern of the procedural detail: the same seed gives the same lines on every render and every row of a batch",
    flag: nil)

  // MARK: Camera

  /// The `camera.distance` parameter.
  ///
  /// How far above the canvas's center the picture is seen from (0: infinitely far, every
  /// point straight on, as Core Image does): nearer, each point is seen from its own
  /// direction, so a polished flat face shows a gradient of the room across it; a material's
  /// value is for text at 160 px and scales with the text, as the radius does.
  public static let cameraDistance = NumberParameter(
    key: "camera.distance", range: 0...100_000, defaultValue: 0, unit: "pixels",
    help:
      "how far above the canvas's center the picture is seen from (0: infinitely far, every point straight on, as Core Image does): nearer, each point is seen from its own direction, so a polished flat face shows a gradient of the room across it; a material's value is for text at 160 px and scales with the text, as the radius does"
  )

  // MARK: Plate

  /// The `plate.surface` parameter.
  ///
  /// A plate the letters stand on (or are cut into), filling the canvas instead of the
  /// background: its surface, with the keys of `surface`, starting from the letters' own.
  public static let plateSurface = SectionParameter(
    key: "plate.surface", defaultText: "the letters' `surface`", rangeText: "the keys of `surface`",
    help:
      "a plate the letters stand on (or are cut into), filling the canvas instead of the background: its surface, with the keys of `surface`, starting from the letters' own; lit by the material's lights and environment"
  )
  /// The `plate.detail` parameter.
  ///
  /// The plate's procedural detail, with the keys of `detail` (its seed too); none unless
  /// given.
  public static let plateDetail = SectionParameter(
    key: "plate.detail", defaultText: "none", rangeText: "the keys of `detail`",
    help:
      "the plate's procedural detail, with the keys of `detail`; none unless given. Giving either plate key puts the letters on a plate"
  )

  // MARK: Shading

  /// The `shading.size` parameter.
  ///
  /// Side of the lit-ball image (the shading image).
  public static let shadingSize = IntegerParameter(
    key: "shading.size", range: 16...4096, defaultValue: 512, unit: "pixels",
    help: "side of the lit-ball image (the shading image)", flag: "--shading-size")

  /// Every parameter, in the order of the reference table.
  public static let all: [any ParameterDefinition] = [
    description, extends,
    base, specular, shininess, ambient, metallic, model, fresnel,
    lights, lightKind, lightPosition, lightAngle, lightAltitude, lightColor, lightIntensity,
    lightTarget, lightCone,
    environmentIntensity, sky, horizon, ground, band, bandWidth, horizonAngle, horizonSoftness,
    softboxes, softboxAngle, softboxAltitude, softboxWidth, softboxHeight, softboxColor,
    softboxIntensity,
    radius, profile, depth, scale, soften, roundCorners, direction, insideCorners,
    shadowOpacity, shadowDistance, shadowSoftness, shadowColor, shadowAngle,
    occlusionStrength, occlusionRadius,
    detailBrushed, detailBrushedAngle, detailBrushedWidth, detailBrushedLength, detailHammered,
    detailHammeredSize,
    detailSandblasted, detailSandblastedSize, detailWaviness, detailWavinessSize, detailGrain,
    detailGrainSpacing, detailGrainAngle,
    detailGrainFigure, detailGrainColor, detailSpeckle, detailSpeckleSize, detailSpeckleColor,
    detailSeed,
    cameraDistance, plateSurface, plateDetail,
    shadingSize, background,
  ]

  /// The keys of a section (`surface`, `lights[]`, ...), in table order, without the prefix.
  public static func keys(in section: String) -> [String] {
    let prefix = section + "."
    return all.map(\.row.key).filter {
      $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains(".")
    }
    .map { String($0.dropFirst(prefix.count)) }
  }

  /// The top-level keys of a material file.
  public static var topLevelKeys: [String] {
    var keys: [String] = []
    for row in all.map(\.row) {
      let head = String(row.key.prefix { $0 != "." && $0 != "[" })
      if !keys.contains(head) { keys.append(head) }
    }
    return keys
  }

  /// The reference table of docs/materials.md, generated.
  public static var markdownTable: String {
    var lines = ["| key | type | default | range | meaning |", "|---|---|---|---|---|"]
    for row in all.map(\.row) {
      let type = row.unit.isEmpty ? row.type : "\(row.type) (\(row.unit))"
      let flag = row.flag.map { "; `\($0)` on the command line" } ?? ""
      lines.append(
        "| `\(row.key)` | \(type) | \(row.defaultText) | \(row.rangeText) | \(row.help)\(flag) |")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

/// One line of the parameter table, as text: what `emboss parameters`, the docs and a
/// parameter editor show.
public struct ParameterRow: Sendable, Equatable {
  /// The key, as in a material file and `--set`.
  public var key: String
  /// "number", "color", a list of choices...
  public var type: String
  /// The unit, or empty.
  public var unit: String
  /// The default, as the table shows it.
  public var defaultText: String
  /// The range or the choices, as the table shows them.
  public var rangeText: String
  /// One line of help.
  public var help: String
  /// The command-line flag that overrides the key, if any.
  public var flag: String?
}

/// A parameter of any type.
public protocol ParameterDefinition: Sendable {
  var row: ParameterRow { get }
}

/// A finite number in a range.
public struct NumberParameter: ParameterDefinition {
  /// The key, as in a material file and `--set`.
  public let key: String
  /// The values allowed.
  public let range: ClosedRange<Float>
  /// nil: no default (an alternative to another key).
  public let defaultValue: Float?
  /// The unit, or empty.
  public let unit: String
  /// One line of help.
  public let help: String
  /// The command-line flag that overrides the key, if any.
  public let flag: String?

  init(
    key: String, range: ClosedRange<Float>, defaultValue: Float?, unit: String = "", help: String,
    flag: String? = nil
  ) {
    self.key = key
    self.range = range
    self.defaultValue = defaultValue
    self.unit = unit
    self.help = help
    self.flag = flag
  }

  /// The default, for parameters that have one.
  public var value: Float { defaultValue ?? range.lowerBound }

  /// Throws unless `value` is finite and in range.
  public func check(_ value: Float) throws(ParameterError) {
    guard value.isFinite else {
      throw ParameterError(key: key, message: "must be a finite number, got \(value)")
    }
    guard range.contains(value) else {
      throw ParameterError(
        key: key,
        message:
          "must be in \(formatNumber(range.lowerBound))...\(formatNumber(range.upperBound)), got \(formatNumber(value))"
      )
    }
  }

  /// The parameter's line in the table.
  public var row: ParameterRow {
    ParameterRow(
      key: key, type: "number", unit: unit, defaultText: defaultValue.map(formatNumber) ?? "",
      rangeText: "\(formatNumber(range.lowerBound))...\(formatNumber(range.upperBound))",
      help: help,
      flag: flag)
  }
}

/// A whole number in a range.
public struct IntegerParameter: ParameterDefinition {
  /// The key, as in a material file and `--set`.
  public let key: String
  /// The values allowed.
  public let range: ClosedRange<Int>
  /// The value when the key is not given.
  public let defaultValue: Int
  /// The unit, or empty.
  public let unit: String
  /// One line of help.
  public let help: String
  /// The command-line flag that overrides the key, if any.
  public let flag: String?

  /// Checks that `value` is in `range`.
  ///
  /// - Throws: `ParameterError` naming the key and the range.
  public func check(_ value: Int) throws(ParameterError) {
    guard range.contains(value) else {
      throw ParameterError(
        key: key, message: "must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
    }
  }

  /// The parameter's line in the table.
  public var row: ParameterRow {
    ParameterRow(
      key: key, type: "whole number", unit: unit, defaultText: String(defaultValue),
      rangeText: "\(range.lowerBound)...\(range.upperBound)", help: help, flag: flag)
  }
}

/// An opaque color, linear light.
public struct ColorParameter: ParameterDefinition {
  /// The key, as in a material file and `--set`.
  public let key: String
  /// The value when the key is not given, linear light.
  public let defaultValue: SIMD3<Float>
  /// How the default is written (a hex color).
  public let defaultText: String
  /// One line of help.
  public let help: String

  /// Checks that every component of `value` is in 0...1.
  ///
  /// - Throws: `ParameterError` naming the key.
  public func check(_ value: SIMD3<Float>) throws(ParameterError) {
    guard value.x.isFinite, value.y.isFinite, value.z.isFinite, value.min() >= 0 else {
      throw ParameterError(
        key: key, message: "must be a color with finite, non-negative components")
    }
  }

  /// The parameter's line in the table.
  public var row: ParameterRow {
    ParameterRow(
      key: key, type: "color", unit: "", defaultText: defaultText, rangeText: "", help: help,
      flag: nil)
  }
}

/// A point or direction `[x, y, z]`, each component in a range.
public struct VectorParameter: ParameterDefinition {
  /// The key, as in a material file and `--set`.
  public let key: String
  /// The values allowed for each component.
  public let range: ClosedRange<Float>
  /// The value when the key is not given.
  public let defaultValue: SIMD3<Float>
  /// The unit, or empty.
  public let unit: String
  /// One line of help.
  public let help: String

  /// Checks that every component of `value` is in `range`.
  ///
  /// - Throws: `ParameterError` naming the key and the range.
  public func check(_ value: SIMD3<Float>) throws(ParameterError) {
    for axis in 0..<3 where !(value[axis].isFinite && range.contains(value[axis])) {
      throw ParameterError(
        key: key,
        message:
          "each coordinate must be in \(formatNumber(range.lowerBound))...\(formatNumber(range.upperBound)), got \(value[axis])"
      )
    }
  }

  /// The parameter's line in the table.
  public var row: ParameterRow {
    let d = defaultValue
    return ParameterRow(
      key: key, type: "`[x, y, z]` or `{x:, y:, z:}`", unit: unit,
      defaultText: "`[\(formatNumber(d.x)), \(formatNumber(d.y)), \(formatNumber(d.z))]`",
      rangeText: "each \(formatNumber(range.lowerBound))...\(formatNumber(range.upperBound))",
      help: help, flag: nil)
  }
}

/// A parameter whose value is one of a fixed set of names, whatever their type.
public protocol ChoiceDefinition: ParameterDefinition {
  var key: String { get }
  /// The names, in declaration order.
  var names: [String] { get }
  var defaultName: String { get }
}

/// One of a fixed set of names.
public struct ChoiceParameter<Value: RawRepresentable & CaseIterable & Sendable>:
  ChoiceDefinition
where Value.RawValue == String {
  /// The key, as in a material file and `--set`.
  public let key: String
  /// The value when the key is not given.
  public let defaultValue: Value
  /// One line of help.
  public let help: String
  /// The command-line flag that overrides the key, if any.
  public let flag: String?

  init(key: String, defaultValue: Value, help: String, flag: String? = nil) {
    self.key = key
    self.defaultValue = defaultValue
    self.help = help
    self.flag = flag
  }

  /// Every choice's name, in declaration order.
  public var names: [String] { Value.allCases.map(\.rawValue) }
  /// The default choice's name.
  public var defaultName: String { defaultValue.rawValue }

  /// The parameter's line in the table.
  public var row: ParameterRow {
    ParameterRow(
      key: key, type: names.map { "`\($0)`" }.joined(separator: ", "), unit: "",
      defaultText: "`\(defaultValue.rawValue)`", rangeText: "", help: help, flag: flag)
  }
}

/// Free text.
public struct TextParameter: ParameterDefinition {
  /// The key, as in a material file and `--set`.
  public let key: String
  /// The value when the key is not given; nil for none.
  public let defaultValue: String?
  /// One line of help.
  public let help: String

  /// The parameter's line in the table.
  public var row: ParameterRow {
    ParameterRow(
      key: key, type: "text", unit: "", defaultText: defaultValue.map { "\"\($0)\"" } ?? "",
      rangeText: key == "extends" ? "a preset name or a path" : "", help: help, flag: nil)
  }
}

/// A color or `transparent`.
public struct BackgroundParameter: ParameterDefinition {
  /// The key, as in a material file and `--set`.
  public let key: String
  /// The value when the key is not given.
  public let defaultValue: Background
  /// The default, as the table shows it.
  public let defaultText: String
  /// One line of help.
  public let help: String
  /// The command-line flag that overrides the key, if any.
  public let flag: String?

  /// The parameter's line in the table.
  public var row: ParameterRow {
    ParameterRow(
      key: key, type: "color or `transparent`", unit: "", defaultText: defaultText,
      rangeText: "alpha below 1 is see-through", help: help, flag: flag)
  }
}

/// A list of entries (lights, softboxes), each with its own keys.
public struct ListParameter: ParameterDefinition {
  /// The key, as in a material file and `--set`.
  public let key: String
  /// The default, as the table shows it.
  public let defaultText: String
  /// What the list may hold, as the table shows it.
  public let rangeText: String
  /// One line of help.
  public let help: String

  /// The parameter's line in the table.
  public var row: ParameterRow {
    ParameterRow(
      key: key, type: "list", unit: "", defaultText: defaultText, rangeText: rangeText, help: help,
      flag: nil)
  }
}

/// A section of a material file that takes the keys of another section (the plate's
/// `surface` and `detail`).
public struct SectionParameter: ParameterDefinition {
  /// The key, as in a material file and `--set` (`plate.surface.base`).
  public let key: String
  /// The default, as the table shows it.
  public let defaultText: String
  /// What it holds, as the table shows it.
  public let rangeText: String
  /// One line of help.
  public let help: String

  /// The parameter's line in the table.
  public var row: ParameterRow {
    ParameterRow(
      key: key, type: "section", unit: "", defaultText: defaultText, rangeText: rangeText,
      help: help, flag: nil)
  }
}

/// A value outside what its parameter allows.
public struct ParameterError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The key whose value is wrong.
  public var key: String
  /// What is wrong with it.
  public var message: String

  /// An error for `key`.
  public init(key: String, message: String) {
    self.key = key
    self.message = message
  }

  /// The key in quotes, then the message.
  public var description: String { "\"\(key)\": \(message)" }
}

/// A number as people write it: no trailing ".0".
public func formatNumber(_ value: Float) -> String {
  value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
}
