import HTTP1
import Time

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
        /// Time from the loop turn that read the request's last bytes to the responder's answer, in nanoseconds.
        public var durationNanoseconds: UInt64
        /// The request id: letters, digits and `-_.:` only, as the server's own ids and the client ids its
        /// sanitizer lets through are, so it is written unquoted.
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
    /// - Parameter prefix: the line's start, `prefix(unixSeconds:label:)` of now.
    public static func append(_ entry: Entry, prefix: [UInt8], into out: inout [UInt8]) {
        out.appendWriting(atMost: maximumLength(entry, prefixCount: prefix.count)) {
            write(entry, prefix: prefix, into: &$0)
        }
    }

    /// What every line of one second starts with: `YYYY-MM-DDTHH:MM:SSZ info <label>: request duration_ms=`.
    /// Made once per second, so that a line copies it rather than writing the timestamp and label again.
    public static func prefix(unixSeconds: Int, label: String) -> [UInt8] {
        timestamp(unixSeconds: unixSeconds) + Array(" info \(label): request duration_ms=".utf8)
    }

    /// The most bytes `write` writes for `entry` after a prefix of `prefixCount` bytes: the prefix, the method,
    /// the two values with their quotes, the literals with the fraction's point and digits and the line feed (40
    /// bytes) and two decimals of at most 20 digits.
    public static func maximumLength(_ entry: Entry, prefixCount: Int) -> Int {
        prefixCount + entry.method.byteCount + entry.requestID.utf8.count + entry.route.utf8.count + 90
    }

    /// Writes `entry` as one line through `line`, which has room for `maximumLength(entry, prefixCount:
    /// prefix.count)` bytes.
    /// - Parameter prefix: the line's start, `prefix(unixSeconds:label:)` of now.
    package static func write(_ entry: Entry, prefix: [UInt8], into line: inout ByteWriter) {
        let micros = entry.durationNanoseconds / 1000
        prefix.withUnsafeBufferPointer { prefix in
            entry.requestID.withUTF8Bytes { requestID in
                entry.route.withUTF8Bytes { route in
                    line.bytes(prefix)
                    line.decimal(micros / 1000)
                    line.byte(UInt8(ascii: "."))
                    let fraction = micros % 1000
                    line.byte(UInt8(ascii: "0") + UInt8(fraction / 100))
                    line.byte(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
                    line.byte(UInt8(ascii: "0") + UInt8(fraction % 10))
                    line.literal(" method=")
                    line.method(entry.method)
                    line.literal(" request_id=")
                    line.bytes(requestID)  // never quoted: see `Entry.requestID`
                    line.literal(" route=")
                    line.value(route)
                    line.literal(" status=")
                    line.decimal(UInt64(max(0, entry.status)))
                    line.byte(UInt8(ascii: "\n"))
                }
            }
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (UTC) of `unixSeconds`.
    public static func timestamp(unixSeconds: Int) -> [UInt8] {
        CivilDate.utcTimestamp(Int64(unixSeconds))
    }
}

extension HTTPMethod {
    /// The length of the method's spelling in bytes.
    fileprivate var byteCount: Int {
        if case .other(let name) = self { return name.utf8.count }
        return 7
    }
}

extension ByteWriter {
    /// The method's spelling. A method is a token, so it never holds a space.
    fileprivate mutating func method(_ method: HTTPMethod) {
        method.rawValue.withUTF8Bytes { bytes($0) }
    }

    /// A value as `LineLogHandler` renders text: quoted when it holds a space. Request ids and route
    /// templates never hold line breaks (the parser and the sanitizer refuse them).
    @inline(__always)
    fileprivate mutating func value(_ text: UnsafeBufferPointer<UInt8>) {
        if text.contains(UInt8(ascii: " ")) {
            byte(UInt8(ascii: "\""))
            bytes(text)
            byte(UInt8(ascii: "\""))
        } else {
            bytes(text)
        }
    }
}
