import Foundation

/// Reads settings by their environment names (`POSTERN_OAUTH_REFRESH_RACE_SECONDS`), scoped to one surface's prefix,
/// and parses them strictly: a value that does not parse is a ``ConfigurationError`` naming the whole key, never a
/// silent default. Each surface's configuration type reads its own keys through one (`init(config:)`), as
/// swift-configuration's libraries take a scoped `ConfigReader`; the composition root builds it over
/// swift-configuration's providers (flags, environment, file).
///
/// Unset and empty values read as nil, so the caller's default stands. Text is trimmed of spaces.
public struct ConfigurationReader {
    /// The prefix of every name read, e.g. `POSTERN_OAUTH_`.
    public let prefix: String
    private let lookup: (String) -> String?

    /// A reader of the whole names `lookup` answers for.
    public init(_ lookup: @escaping (String) -> String?) {
        self.init(prefix: "", lookup: lookup)
    }

    private init(prefix: String, lookup: @escaping (String) -> String?) {
        self.prefix = prefix
        self.lookup = lookup
    }

    /// A reader whose names are `prefix` + `scope` + `_` + name, e.g. `scoped(to: "POSTERN_OAUTH")`.
    public func scoped(to scope: String) -> ConfigurationReader {
        ConfigurationReader(prefix: prefix + scope + "_", lookup: lookup)
    }

    /// The whole name of `name` in this scope.
    public func key(_ name: String) -> String { prefix + name }

    /// An error naming `name`'s whole key.
    public func error(_ name: String, _ message: String) -> ConfigurationError {
        ConfigurationError(key: key(name), message: message)
    }

    /// The value as set, untouched; nil when unset.
    public func value(_ name: String) -> String? { lookup(key(name)) }

    /// The value, untouched (secrets, PEM text); nil when unset or empty.
    public func raw(_ name: String) -> String? {
        guard let value = lookup(key(name)), !value.isEmpty else { return nil }
        return value
    }

    /// The value trimmed of spaces; nil when unset, empty when set empty.
    public func text(_ name: String) -> String? {
        lookup(key(name)).map { trimmed($0) }
    }

    /// The value trimmed, nil when unset or empty.
    public func nonEmptyText(_ name: String) -> String? {
        guard let value = text(name), !value.isEmpty else { return nil }
        return value
    }

    /// An integer; nil when unset or empty.
    /// - Throws: ``ConfigurationError`` when set to anything else.
    public func integer(_ name: String) throws -> Int? {
        guard let value = nonEmptyText(name) else { return nil }
        guard let number = Int(value) else { throw error(name, "must be an integer (got \"\(value)\")") }
        return number
    }

    /// `on`/`true`/`yes`/`1` or `off`/`false`/`no`/`0`, in any case; nil when unset or empty.
    /// - Throws: ``ConfigurationError`` when set to anything else.
    public func flag(_ name: String) throws -> Bool? {
        guard let value = nonEmptyText(name)?.lowercased() else { return nil }
        switch value {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw error(name, "must be on or off (got \"\(value)\")")
        }
    }

    /// One of `allowed` (lowercased); nil when unset or empty.
    /// - Throws: ``ConfigurationError`` when set to anything else.
    public func choice(_ name: String, _ allowed: [String]) throws -> String? {
        guard let value = nonEmptyText(name)?.lowercased() else { return nil }
        guard allowed.contains(value) else {
            throw error(name, "must be \(allowed.joined(separator: " or ")) (got \"\(value)\")")
        }
        return value
    }

    /// A comma-separated list, items trimmed, empty items dropped; nil when unset (empty when set empty).
    public func list(_ name: String) -> [String]? {
        text(name).map { value in value.split(separator: ",").map { trimmed(String($0)) }.filter { !$0.isEmpty } }
    }

    private func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces) }
}
