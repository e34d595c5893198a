import Foundation

/// Re-renders a job whenever its material file (or anything it extends) changes, reusing
/// every stage whose inputs did not change (`RenderCache`): a light edit re-runs only the
/// shading image and the composite.
///
/// An error is reported and the last good output stays
/// as it is (outputs are written atomically); the watcher then waits for the next save.
public struct MaterialWatcher {
  /// What a watch reports after each change.
  public enum Event {
    /// A render was written; `stages` are the stages that ran.
    case rendered(milliseconds: Double, stages: [String])
    /// Loading or rendering failed; one line per problem.
    case failed([String])
  }

  /// The render repeated when its inputs change.
  public var job: RenderJob
  /// Where fonts and presets are found.
  public var resources: Resources
  /// How often the files are compared with their last contents.
  public var interval: Duration
  /// Lit balls kept between processes (the first render's ball); nil: none.
  public var ballCache: BallCache? = nil

  /// A watch over `job`'s input files, checked every `interval`.
  public init(job: RenderJob, resources: Resources, interval: Duration = .milliseconds(100)) {
    self.job = job
    self.resources = resources
    self.interval = interval
  }

  /// Renders once, then again after every change, `write` receiving each good render.
  ///
  /// Returns after `limit` renders following a change (nil: never).
  public func run(
    limit: Int? = nil, write: (RenderJob.Output) throws -> Void, report: (Event) -> Void
  ) {
    let cache = StageCache(disk: ballCache)
    var sources = attempt(job, cache: cache, write: write, report: report)
    var seen = contents(of: sources)
    var changes = 0
    while limit.map({ changes < $0 }) ?? true {
      Thread.sleep(
        forTimeInterval: Double(interval.components.seconds) + Double(
          interval.components.attoseconds) * 1e-18)
      let now = contents(of: sources)
      guard now != seen else { continue }
      // The watched files as they are now, not as the job's snapshot read them.
      var fresh = job
      fresh.inputs = job.inputs.removing(sources)
      sources = attempt(fresh, cache: cache, write: write, report: report)
      seen = contents(of: sources)
      changes += 1
    }
  }

  /// One render; returns the files to watch.
  private func attempt(
    _ job: RenderJob, cache: StageCache, write: (RenderJob.Output) throws -> Void,
    report: (Event) -> Void
  ) -> [String] {
    var sources: [String] = []
    let clock = ContinuousClock()
    let start = clock.now
    do {
      let output = try job.run(resources: resources, cache: cache, materialSources: &sources)
      try write(output)
      let elapsed = clock.now - start
      report(
        .rendered(
          milliseconds: Double(elapsed.components.seconds) * 1000
            + Double(elapsed.components.attoseconds) * 1e-15,
          stages: output.timings.stages.map(\.name)))
    } catch let error as MaterialError {
      report(.failed(error.lines))
    } catch {
      report(.failed(["error: \((error as? EmbossError)?.commandLineMessage ?? "\(error)")"]))
    }
    if sources.isEmpty, let path = resources.materialLibrary.path(for: job.material) {
      sources = [path]
    }
    return sources
  }

  /// Each file's bytes (nil when unreadable or not a regular file: a FIFO would block the
  /// watcher, and is read once), compared to notice any change at all.
  private func contents(of files: [String]) -> [Data?] {
    files.map { path in
      var status = stat()
      guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
      return try? InputFile.read(path, what: "material", limit: MaterialLoader.fileLimit)
    }
  }
}
