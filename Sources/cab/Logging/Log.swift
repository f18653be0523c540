import Foundation
import Logging
import Synchronization

/// The executable's logging: swift-log bootstrapped once with our `JSONLogHandler`, and the bridges from a
/// `Logger` to the closures the libraries take today (`log: (String, [String: String]) -> Void` in
/// `DispatchCoordinator`, JSON-line closures in `CabHTTP`). Until those modules take a `Logger` themselves,
/// everything `cab` logs goes through here.
enum Log {
    private static let bootstrapped = Mutex(false)

    /// Installs the JSON-lines handler at `level` (the first call wins; later calls only change nothing).
    /// `CabCommand.main` calls it before anything logs; commands call it again with `--log-level`'s value, which
    /// is why the level lives in `threshold` rather than in the handler alone.
    static func bootstrap(level: Logger.Level) {
        threshold.withLock { $0 = level }
        let first = bootstrapped.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { _ in LevelGate(handler: JSONLogHandler(level: .trace), ownLevel: nil) }
    }

    /// The level in force for every logger `cab` makes (`--log-level`, `log_level`, `CAB_LOG_LEVEL`).
    static let threshold = Mutex(Logger.Level.info)

    /// The level in force now.
    static var level: Logger.Level { threshold.withLock { $0 } }

    /// The executable's logger.
    static var logger: Logger { Logger(label: "cab") }

    /// Logs a steady-state event at info.
    static func info(_ message: String, _ metadata: [String: String] = [:]) {
        logger.info("\(message)", metadata: metadata.mapValues { .string($0) })
    }

    /// Logs something an operator should look at (a fallback taken, data ignored) at warning.
    static func warning(_ message: String, _ metadata: [String: String] = [:]) {
        logger.warning("\(message)", metadata: metadata.mapValues { .string($0) })
    }

    /// Logs a failure at error.
    static func error(_ message: String, _ metadata: [String: String] = [:]) {
        logger.error("\(message)", metadata: metadata.mapValues { .string($0) })
    }
}

/// Applies `Log.threshold` to every logger, so that `--log-level` parsed after the bootstrap still holds for
/// loggers made before it (swift-log fixes a logger's level when it is made). A level set on one logger
/// (`logger.logLevel = .debug`) holds for that logger alone, as swift-log expects.
private struct LevelGate: LogHandler {
    var handler: JSONLogHandler
    var ownLevel: Logger.Level?
    var logLevel: Logger.Level {
        get { ownLevel ?? Log.level }
        set { ownLevel = newValue }
    }
    var metadata: Logger.Metadata {
        get { handler.metadata }
        set { handler.metadata = newValue }
    }
    var metadataProvider: Logger.MetadataProvider? {
        get { handler.metadataProvider }
        set { handler.metadataProvider = newValue }
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { handler[metadataKey: key] }
        set { handler[metadataKey: key] = newValue }
    }
    func log(event: LogEvent) { handler.log(event: event) }
}

extension Logger {
    /// A closure for `CabHTTP`'s JSON-line logs (the error mapper's "unhandled error" lines): the line's `level`
    /// and `message` become the event's, its other members metadata (its own `time` is replaced by ours).
    func jsonLineClosure() -> @Sendable (String) -> Void {
        let logger = self
        return { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                logger.error("unreadable log line from the HTTP server", metadata: ["line": .string(line)])
                return
            }
            let level = (object["level"] as? String).flatMap(Logger.Level.init(rawValue:)) ?? .error
            let message = object["message"] as? String ?? "http server"
            var metadata: Logger.Metadata = [:]
            for (key, value) in object where !["time", "level", "message"].contains(key) {
                metadata[key] = .string(value as? String ?? "\(value)")
            }
            logger.log(level: level, "\(message)", metadata: metadata)
        }
    }
}
