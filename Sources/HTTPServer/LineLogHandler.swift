import Glibc
import Logging
import Synchronization
import Time

/// A swift-log handler that writes one line per event to standard error with a single `write(2)`.
///
/// `postern serve` logs one line per request, so the handler is on the hot path: the UTC timestamp is
/// formatted once per second and reused, metadata keys are sorted only when there is more than one source
/// of metadata, and nothing is locked except the timestamp cache. Lines look like
/// `2026-11-22T08:24:33Z info postern: request duration_ms=0.396 method=POST route=/api/v1/challenge ...`.
public struct LineLogHandler: LogHandler {
    /// Level below which events are dropped (checked by `Logger` before calling the handler).
    public var logLevel: Logger.Level
    /// Metadata attached to every event of this handler.
    public var metadata: Logger.Metadata = [:]
    /// Contextual metadata source, if any.
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable ([UInt8]) -> Void

    /// A handler for `label` at `level`, writing to standard error (or to `write`, for tests).
    public init(label: String, level: Logger.Level, write: (@Sendable ([UInt8]) -> Void)? = nil) {
        self.label = label
        self.logLevel = level
        self.write = write ?? Self.standardError
    }

    /// Per-key access to ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Formats and writes one event.
    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, new in new } }
        if let explicit = event.metadata { all.merge(explicit) { _, new in new } }
        var line = Self.timestamp()
        line += " "
        line += event.level.rawValue
        line += " "
        line += label
        line += ": "
        line += event.message.description
        for key in all.keys.sorted() {
            line += " "
            line += key
            line += "="
            line += Self.render(all[key]!)
        }
        line += "\n"
        write(Array(line.utf8))
    }

    private static func render(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return text.contains(" ") ? "\"\(text)\"" : text
        case .stringConvertible(let value): return value.description
        case .array(let values): return "[" + values.map(render).joined(separator: ",") + "]"
        case .dictionary(let values):
            return "{" + values.keys.sorted().map { "\($0)=\(render(values[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))

    /// `YYYY-MM-DDTHH:MM:SSZ`, formatted at most once per second.
    static func timestamp() -> String {
        let now = time(nil)
        if let cached = cache.withLock({ $0.second == now ? $0.text : nil }) { return cached }
        let text = RFC3339.format(Int64(now))
        cache.withLock { $0 = (now, text) }
        return text
    }

    private static let standardError: @Sendable ([UInt8]) -> Void = { bytes in
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
