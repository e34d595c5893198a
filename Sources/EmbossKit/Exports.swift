// EmbossKit is the library's public face: every stage's public types, and the pipeline.
@_exported import EmbossCodecs
@_exported import EmbossCompositing
@_exported import EmbossEngrave
@_exported import EmbossGeometry
@_exported import EmbossMaterials
@_exported import EmbossMesh
@_exported import EmbossModel
@_exported import EmbossRaster
@_exported import EmbossRelief
@_exported import EmbossShading
@_exported import EmbossSupport
@_exported import EmbossText
