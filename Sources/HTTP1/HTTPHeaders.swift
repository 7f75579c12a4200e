/// An ordered list of header fields with case-insensitive lookup by name.
///
/// Names keep the spelling they were added with; lookups compare names ignoring ASCII case. Repeated
/// fields stay separate entries, in order, so `values(_:)` returns every occurrence.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field as a `(name, value)` pair.
    public typealias Element = (name: String, value: String)

    @usableFromInline
    var fields: [(name: String, value: String)]

    /// Creates an empty header list.
    public init() {
        fields = []
    }

    /// Creates a header list from pairs, keeping their order.
    /// - Parameter pairs: `(name, value)` pairs; names are not validated here.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// Creates a header list from a literal such as `["Content-Type": "text/plain"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Reserves room for `count` fields (used by the parser).
    init(reservingCapacity count: Int) {
        fields = []
        fields.reserveCapacity(count)
    }

    /// The value of the first field named `name` (any case), or nil.
    public subscript(name: String) -> String? {
        firstIndex(named: name, from: 0).map { fields[$0].value }
    }

    /// Every value of fields named `name` (any case), in order.
    public func values(_ name: String) -> [String] {
        fields.withUnsafeBufferPointer { fields in  // one pass, names compared in place
            fields.indices.compactMap { ASCII.equalsIgnoringCase(fields[$0].name, name) ? fields[$0].value : nil }
        }
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(_ name: String) -> Bool {
        firstIndex(named: name, from: 0) != nil
    }

    /// The index of the first field at or after `start` named `name` (any case). Over the buffer, so that
    /// the fields passed over are compared in place rather than copied (two retains and releases each).
    private func firstIndex(named name: String, from start: Int) -> Int? {
        fields.withUnsafeBufferPointer { fields in
            var index = start
            while index < fields.count {
                if ASCII.equalsIgnoringCase(fields[index].name, name) { return index }
                index += 1
            }
            return nil
        }
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces the first field named `name` and removes the others, or appends when absent.
    public mutating func replaceOrAdd(_ name: String, _ value: String) {
        if let first = firstIndex(named: name, from: 0) {
            fields[first] = (name: name, value: value)
            var next = first + 1  // each search goes on where the last removal left off
            while let repeated = firstIndex(named: name, from: next) {
                fields.remove(at: repeated)
                next = repeated
            }
        } else {
            fields.append((name: name, value: value))
        }
    }

    /// Removes every field named `name` (any case).
    public mutating func remove(_ name: String) {
        fields.removeAll { ASCII.equalsIgnoringCase($0.name, name) }
    }

    /// The number of fields, counting repeats.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// The fields as `Name: value` lines, for debugging. May include secrets: never log it as is.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
