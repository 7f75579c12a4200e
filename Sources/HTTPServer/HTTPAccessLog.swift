import HTTP1

/// One access-log line per answered request, formatted straight into a byte buffer: no `Logger` call,
/// no metadata dictionary, no string interpolation. The line is the one `LineLogHandler` writes for
/// an `info` event `request` with sorted metadata, so log readers see no difference:
///
/// `2026-11-22T08:24:33Z info postern: request duration_ms=0.396 method=POST request_id=5c1e0a2f route=/api/v1/challenge status=200`
///
/// Only what identifies the request goes in: never headers, bodies, query strings or tokens (the
/// route is the template, `/api/accounts/{id}`, not the path).
public enum HTTPAccessLog {
    /// What one line says.
    public struct Entry {
        /// The request method.
        public var method: HTTPMethod
        /// The route template, or `unmatched`.
        public var route: String
        /// The response status code.
        public var status: Int
        /// Time from the request's last byte to its response being queued, in nanoseconds.
        public var durationNanoseconds: UInt64
        /// The request id.
        public var requestID: String

        /// An entry.
        public init(method: HTTPMethod, route: String, status: Int, durationNanoseconds: UInt64, requestID: String) {
            self.method = method
            self.route = route
            self.status = status
            self.durationNanoseconds = durationNanoseconds
            self.requestID = requestID
        }
    }

    /// Appends `entry` as one line.
    /// - Parameters:
    ///   - timestamp: `YYYY-MM-DDTHH:MM:SSZ` of now (see `timestamp(unixSeconds:)`).
    ///   - label: the logger label (`postern`).
    public static func append(_ entry: Entry, timestamp: [UInt8], label: String, into out: inout [UInt8]) {
        out.reserveMore(160 + entry.route.utf8.count + entry.requestID.utf8.count)
        out.append(contentsOf: timestamp)
        out.appendLiteral(" info ")
        label.withUTF8Bytes { out.append(contentsOf: $0) }
        out.appendLiteral(": request duration_ms=")
        let micros = entry.durationNanoseconds / 1000
        out.appendDecimal(Int64(clamping: micros / 1000))
        out.append(UInt8(ascii: "."))
        let fraction = micros % 1000
        out.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        out.appendLiteral(" method=")
        appendValue(entry.method.rawValue, into: &out)
        out.appendLiteral(" request_id=")
        appendValue(entry.requestID, into: &out)
        out.appendLiteral(" route=")
        appendValue(entry.route, into: &out)
        out.appendLiteral(" status=")
        out.appendDecimal(Int64(max(0, entry.status)))
        out.append(UInt8(ascii: "\n"))
    }

    /// A value as `LineLogHandler` renders text: quoted when it holds a space. Request ids and route
    /// templates never hold line breaks (the parser and the sanitizer refuse them).
    static func appendValue(_ value: String, into out: inout [UInt8]) {
        value.withUTF8Bytes { bytes in
            if bytes.contains(UInt8(ascii: " ")) {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: bytes)
                out.append(UInt8(ascii: "\""))
            } else {
                out.append(contentsOf: bytes)
            }
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (UTC) of `unixSeconds`.
    public static func timestamp(unixSeconds: Int) -> [UInt8] {
        CivilDate.utcTimestamp(Int64(unixSeconds))
    }
}
