import HTTP1
import SocketServer

/// What every HTTP connection of one server shares: limits, timeouts, the responder and the encoder.
///
/// Immutable, so `Sendable` without locks.
public final class HTTPConnectionShared: Sendable {
    /// The server configuration (limits, timeouts, pipelining).
    public let configuration: HTTPServerConfiguration
    /// Routes and answers requests.
    public let responder: any HTTPResponder
    /// Encodes responses.
    public let encoder: HTTPResponseEncoder

    /// Creates the shared part of a server's connections.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
        encoder = HTTPResponseEncoder(serverName: configuration.serverName)
    }
}

/// What the connections of one event loop share: the cached `Date` header and access-log line start, the
/// request-id counter, and where access-log lines are gathered.
///
/// Not `Sendable`: one instance per loop, used only on that loop.
public final class HTTPLoopState {
    /// The loop's index in its group.
    public let index: Int
    private let prefix: [UInt8]
    private let wallClock: () -> Int
    /// The loop's monotonic clock in nanoseconds: when a responder answered, for the access log and `answered`.
    public let clock: @Sendable () -> UInt64
    private let accessLog: EventLoop?
    private let accessLogLabel: String
    private var dateSecond: Int = -1
    private var dateBytes: [UInt8] = []
    private var linePrefixSecond: Int = -1
    private var linePrefix: [UInt8] = []
    private var requestCounter: UInt64 = 0
    /// The loop whose turns `takeShortRequest` counts in; nil: no budget.
    private let loop: EventLoop?
    private let shortRequestsPerTurn: Int
    /// The encoding of the handler header list this loop wrote last (`HTTPResponseEncoder.write`).
    public let headerMemo = HTTPHeaderEncodingMemo()

    /// Creates the state of loop `index`.
    /// - Parameters:
    ///   - index: the loop's index, part of every request id it makes.
    ///   - prefix: per-process random hex digits that start every generated request id.
    ///   - wallClock: Unix seconds now, for the `Date` header and log timestamps.
    ///   - clock: the loop's monotonic clock in nanoseconds.
    ///   - accessLog: where access-log lines go (the loop itself); nil or not gathering: none are made.
    ///   - accessLogLabel: the logger label the lines carry.
    ///   - loop: the loop whose turns short requests are counted in; nil for no budget.
    ///   - shortRequestsPerTurn: short requests answered per turn of `loop`.
    public init(
        index: Int, prefix: [UInt8], wallClock: @escaping () -> Int, clock: @escaping @Sendable () -> UInt64,
        accessLog: EventLoop? = nil,
        accessLogLabel: String = "postern", loop: EventLoop? = nil, shortRequestsPerTurn: Int = .max
    ) {
        self.loop = loop
        self.shortRequestsPerTurn = max(1, shortRequestsPerTurn)
        self.index = index
        self.prefix = prefix
        self.wallClock = wallClock
        self.clock = clock
        self.accessLog = accessLog?.gathersLines == true ? accessLog : nil
        self.accessLogLabel = accessLogLabel
    }

    /// Whether answered requests are logged.
    public var logsAccess: Bool { accessLog != nil }

    /// Gathers the access-log line of an answered request.
    public func logAccess(_ entry: HTTPAccessLog.Entry) {
        guard let accessLog else { return }
        let second = wallClock()
        if second != linePrefixSecond {
            linePrefixSecond = second
            linePrefix = HTTPAccessLog.prefix(unixSeconds: second, label: accessLogLabel)
        }
        let prefix = linePrefix
        accessLog.appendLine(atMost: HTTPAccessLog.maximumLength(entry, prefixCount: prefix.count)) { room in
            var line = ByteWriter(room)
            HTTPAccessLog.write(entry, prefix: prefix, into: &line)
            return line.count
        }
    }

    /// Takes one of the loop's short requests of this turn (`HTTPRoute.shortWork`); false once the turn has answered
    /// `shortRequestsPerTurn`: the request then waits for a later turn.
    public func takeShortRequest() -> Bool {
        loop?.takeShortWork(perTurn: shortRequestsPerTurn) ?? true
    }

    /// The `Date` header bytes, formatted at most once per second.
    public func date() -> [UInt8] {
        let second = wallClock()
        if second != dateSecond {
            dateSecond = second
            dateBytes = HTTPDate.imfFixdate(unixSeconds: Int64(second))
        }
        return dateBytes
    }

    /// A new request id: the process prefix, the loop index, then a counter, in hex. At most 15 bytes
    /// for the first 2^32 requests of a loop, so Swift stores it inline (no allocation).
    public func nextRequestID() -> String {
        requestCounter &+= 1
        let counter = requestCounter
        let digits = (67 - counter.leadingZeroBitCount) / 4  // hex digits of a counter of at least 1
        let length = prefix.count + 1 + digits
        return String(unsafeUninitializedCapacity: length) { out in
            let start = out.baseAddress!
            prefix.withUnsafeBufferPointer { start.update(from: $0.baseAddress!, count: $0.count) }
            start[prefix.count] = Self.hexDigit(UInt64(index))
            var value = counter
            var position = length - 1
            while position > prefix.count {
                start[position] = Self.hexDigit(value)
                value >>= 4
                position -= 1
            }
            return length
        }
    }

    /// The lowercase hex digit of `value`'s low four bits.
    @inline(__always)
    private static func hexDigit(_ value: UInt64) -> UInt8 {
        let digit = UInt8(truncatingIfNeeded: value & 0xF)
        return digit < 10 ? 0x30 + digit : 0x57 + digit
    }

    /// Six random hex digits, drawn once per server.
    static func randomPrefix() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        return (0..<6).map { hexDigit(random >> ($0 * 4)) }
    }
}
