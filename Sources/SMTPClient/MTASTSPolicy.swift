/// An MTA-STS policy (RFC 8461 §3.2): how strictly a domain wants its mail carried, which MX hosts may receive it,
/// and for how long a sender may cache the policy.
///
/// Parsed from the text served at `https://mta-sts.<domain>/.well-known/mta-sts.txt`:
///
/// ```
/// version: STSv1
/// mode: enforce
/// mx: mail.example.com
/// mx: *.example.net
/// max_age: 604800
/// ```
public struct MTASTSPolicy: Sendable, Equatable {
    /// What a sender does when the policy is not met.
    public enum Mode: String, Sendable, Equatable {
        /// Deliver only over TLS with a certificate valid for an MX host the policy lists; otherwise do not deliver.
        case enforce
        /// Report failures (TLSRPT) but deliver anyway.
        case testing
        /// The domain withdrew its policy: as if there were none.
        case none
    }

    /// The policy's mode.
    public let mode: Mode
    /// The `mx:` patterns in the order given, lower-cased, without a trailing dot: a host name, or `*.` and a
    /// domain whose one extra leftmost label the wildcard stands for.
    public let mxPatterns: [String]
    /// How long the policy may be cached, in seconds (at most 31557600, RFC 8461 §3.2).
    public let maxAge: Int

    /// A policy from its parts (patterns normalised as ``parse(_:)`` does).
    public init(mode: Mode, mxPatterns: [String], maxAge: Int) {
        self.mode = mode
        self.mxPatterns = mxPatterns.map(MTASTSPolicy.normalizedHost)
        self.maxAge = maxAge
    }

    /// The longest `max_age` RFC 8461 allows (about a year).
    public static let maximumMaxAge = 31_557_600
    /// The largest policy text read; a longer body is refused. RFC 8461 §3.3 suggests senders limit the body
    /// (64 KiB is what it names as reasonable).
    public static let maximumBytes = 64 * 1024

    /// Whether `host`, an MX host name of the policy's domain, matches one of the policy's patterns (RFC 8461 §4.1):
    /// equal ignoring case and a trailing dot, or, for a pattern `*.d`, `host` is one label followed by `.d`. The
    /// wildcard stands for exactly one label: `*.example.net` matches `mx1.example.net`, neither `example.net` nor
    /// `a.mx1.example.net`.
    public func matches(mxHost host: String) -> Bool {
        let name = MTASTSPolicy.normalizedHost(host)
        guard !name.isEmpty, !name.hasPrefix("."), !name.contains("..") else { return false }
        return mxPatterns.contains { pattern in
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)  // ".example.net"
                guard name.hasSuffix(suffix), name.count > suffix.count else { return false }
                let label = name.dropLast(suffix.count)
                return !label.contains(".") && label != "*"
            }
            return name == pattern
        }
    }

    /// Whether mail may go to `host` under this policy: always when the mode is `testing` or `none` (a `testing`
    /// mismatch is reported, not enforced), and for `enforce` only when ``matches(mxHost:)``. The sender must then
    /// also insist on TLS with a certificate valid for `host`.
    public func permitsDelivery(toMXHost host: String) -> Bool {
        mode != .enforce || matches(mxHost: host)
    }

    /// Parses a policy body.
    ///
    /// Lines end with LF or CRLF; each is `key: value` with optional spaces or tabs after the colon and at the end.
    /// `version` must be `STSv1`, `mode` one of the three modes, `max_age` 1 to 10 digits and at most
    /// ``maximumMaxAge``; each `mx` a host name or `*.` and a domain. `version`, `mode` and `max_age` must appear,
    /// and at least one `mx` unless the mode is `none`. Keys of unknown fields are ignored (RFC 8461 §3.2: extension
    /// fields); a known field given twice (other than `mx`) makes the policy invalid, since a sender cannot know which
    /// one the domain meant. Blank lines are skipped.
    /// - Throws: ``MTASTSError`` naming the first problem.
    public static func parse(_ text: String) throws(MTASTSError) -> MTASTSPolicy {
        guard text.utf8.count <= maximumBytes else { throw .policyTooLarge }
        var version: String?
        var mode: Mode?
        var maxAge: Int?
        var patterns: [String] = []
        // By bytes: as Characters, "\r\n" is one grapheme and would never split at "\n".
        for rawLine in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            var line = Substring(String(decoding: rawLine, as: UTF8.self))
            if line.hasSuffix("\r") { line = line.dropLast() }
            while line.last == " " || line.last == "\t" { line = line.dropLast() }
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else { throw .malformedPolicyLine }
            let key = line[..<colon]
            let value = String(line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }))
            guard !key.isEmpty, key.count <= 32,
                key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) })
            else { throw .malformedPolicyLine }
            switch key {
            case "version":
                guard version == nil else { throw .duplicateField("version") }
                guard value == "STSv1" else { throw .unsupportedVersion }
                version = value
            case "mode":
                guard mode == nil else { throw .duplicateField("mode") }
                guard let parsed = Mode(rawValue: value) else { throw .invalidMode }
                mode = parsed
            case "max_age":
                guard maxAge == nil else { throw .duplicateField("max_age") }
                guard (1...10).contains(value.count), value.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let seconds = Int(value), seconds <= maximumMaxAge
                else { throw .invalidMaxAge }
                maxAge = seconds
            case "mx":
                guard isValidPattern(value) else { throw .invalidMXPattern }
                patterns.append(normalizedHost(value))
            default:
                // An extension field: its value must be printable (RFC 8461 §3.2, sts-policy-ext-value).
                guard value.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) || $0 == "\t" }) else {
                    throw .malformedPolicyLine
                }
            }
        }
        guard version != nil else { throw .missingField("version") }
        guard let mode else { throw .missingField("mode") }
        guard let maxAge else { throw .missingField("max_age") }
        guard mode == .none || !patterns.isEmpty else { throw .missingField("mx") }
        return MTASTSPolicy(mode: mode, mxPatterns: patterns, maxAge: maxAge)
    }

    /// Lower-cased, without one trailing dot.
    static func normalizedHost(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// `["*."] Domain` (RFC 5321's Domain: LDH labels of 1 to 63 characters, at most 253 in all).
    static func isValidPattern(_ value: String) -> Bool {
        var name = normalizedHost(value)
        if name.hasPrefix("*.") { name.removeFirst(2) }
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}
