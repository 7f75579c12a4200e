import JSON

/// The small JSON object an ``AuditEvent`` carries in `details`: string values only, in the order given, written by
/// the project's one JSON serializer. Never put a secret in it.
public enum AuditDetails {
    /// `{"key":"value",...}` of `pairs`.
    public static func json(_ pairs: KeyValuePairs<String, String>) -> String {
        json(pairs.map { ($0.key, $0.value) })
    }

    /// `{"key":"value",...}` of `pairs`, in their order.
    public static func json(_ pairs: [(String, String)]) -> String {
        String(decoding: JSONValue.object(pairs.map { ($0.0, JSONValue.string($0.1)) }).serialize(), as: UTF8.self)
    }
}
