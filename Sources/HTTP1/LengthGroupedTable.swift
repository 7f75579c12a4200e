/// Values under a few short string keys (route templates), found without hashing: keys are grouped by their length
/// in bytes (modulo 64), and a lookup compares the one or two keys of its group whole, where a `Dictionary` hashed
/// the whole key. For lookups made on every request: the router's static paths, the
/// metrics' series by route.
public struct LengthGroupedTable<Value> {
    @usableFromInline var groups = [[(key: String, value: Value)]](repeating: [], count: 64)

    /// An empty table.
    public init() {}

    /// The value under `key`, nil when there is none.
    @inlinable
    public subscript(key: String) -> Value? {
        for entry in groups[key.utf8.count & 63] where entry.key == key { return entry.value }
        return nil
    }

    /// Changes the value under `key`, which starts as `initial` when there is none.
    public mutating func modify(_ key: String, initial: Value, _ change: (inout Value) -> Void) {
        let group = key.utf8.count & 63
        if let index = groups[group].firstIndex(where: { $0.key == key }) {
            change(&groups[group][index].value)
        } else {
            var value = initial
            change(&value)
            groups[group].append((key: key, value: value))
        }
    }

    /// Every value, in no particular order.
    public var values: [Value] { groups.flatMap { $0.map(\.value) } }
}

extension LengthGroupedTable: Sendable where Value: Sendable {}
