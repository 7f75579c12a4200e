/// The protocol version of a request or response (`HTTP/1.1` is `major: 1, minor: 1`).
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    /// The major version digit.
    public var major: Int
    /// The minor version digit.
    public var minor: Int

    /// Creates a version from its two digits.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `HTTP/1.0`: connections close after each response unless the client asks for keep-alive.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// `HTTP/1.1`: connections persist unless either side sends `Connection: close`.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// The wire spelling, such as `HTTP/1.1`.
    public var description: String { "HTTP/\(major).\(minor)" }
}
