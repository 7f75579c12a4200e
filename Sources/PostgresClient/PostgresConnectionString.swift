import CLibPQ

/// What Postern needs to know of a PostgreSQL connection string before it connects: how many servers it names and
/// whether it asks libpq for a server that accepts writes.
///
/// Both of libpq's forms are read, by libpq's own parser (`PQconninfoParse`, so that what is checked is what libpq
/// will connect to): the URI (`postgres://user@h1:5432,h2:5432/postern?target_session_attrs=read-write`) and the
/// key/value string (`host=h1,h2 port=5432,5432 dbname=postern target_session_attrs=read-write`).
///
/// A string naming more than one host must say `target_session_attrs=read-write`: libpq otherwise takes the first
/// server that answers, which after a failover may be a standby (every write refused) or, worse, a stale primary.
public struct PostgresConnectionString: Sendable, Equatable {
    /// The servers named (`host`, or `hostaddr` when it names more), 1 when none is (libpq's default server).
    public let hostCount: Int
    /// `target_session_attrs` as given, nil when absent.
    public let targetSessionAttributes: String?

    /// Why a connection string is refused. The texts never echo the string, which may hold a password.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        /// libpq cannot read it (an unknown keyword, a malformed URI, a missing `=`).
        case unreadable
        /// More than one host without `target_session_attrs=read-write`.
        case multipleHostsWithoutReadWrite

        /// The reason, naming the key at fault.
        public var description: String {
            switch self {
            case .unreadable:
                "is not a connection string libpq can read (postgres://user@host:port/database, or key=value pairs)"
            case .multipleHostsWithoutReadWrite:
                "names more than one host, so it must say target_session_attrs=read-write (else a write may land on "
                    + "a standby or a stale primary)"
            }
        }
    }

    /// Reads `text` and refuses what Postern cannot run with.
    /// - Throws: ``Refusal``.
    public init(validating text: String) throws(Refusal) {
        var options: [String: String] = [:]
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(text, &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            throw .unreadable
        }
        defer { PQconninfoFree(parsed) }
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { options[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        func count(_ key: String) -> Int { options[key].map { $0.split(separator: ",", omittingEmptySubsequences: false).count } ?? 1 }
        hostCount = max(count("host"), count("hostaddr"))
        targetSessionAttributes = options["target_session_attrs"]
        if hostCount > 1 && targetSessionAttributes != "read-write" { throw .multipleHostsWithoutReadWrite }
    }

    /// Whether `text` looks like libpq's key/value form (`host=... dbname=...`) rather than a URL of some scheme.
    public static func isKeyValueForm(_ text: String) -> Bool {
        !text.contains("://") && text.contains("=")
    }
}
