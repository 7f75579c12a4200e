/// A dictionary of at most ``capacity`` entries whose values lapse with time (verified tokens, live grants, first uses):
/// the owner's rule says whether a value is still live at a time. The bound is kept on insertion: when the dictionary is
/// full, the entries no longer live go first and, if that left it still full, every entry goes (a bounded cost for a
/// bounded memory: what was dropped is verified, read or counted again). Nothing lapses on its own; a lapsed entry is
/// still returned by ``subscript(_:)`` until room is made, so a reader checks liveness itself.
///
/// A value type with no lock: its owner keeps it behind its own (a `Mutex`), with whatever it indexes alongside.
public struct ExpiringEntries<Key: Hashable, Value> {
    /// The most entries kept (at least 1).
    public let capacity: Int
    @usableFromInline let isLive: @Sendable (_ value: Value, _ now: Int64) -> Bool
    @usableFromInline var storage: [Key: Value] = [:]

    /// - Parameters:
    ///   - capacity: the most entries kept (at least 1).
    ///   - isLive: whether a value is still live at `now` (Unix seconds); those that are not go first when room is made.
    public init(capacity: Int, isLive: @escaping @Sendable (_ value: Value, _ now: Int64) -> Bool) {
        self.capacity = max(1, capacity)
        self.isLive = isLive
    }

    /// The entries kept, live or not.
    @inlinable public var entries: [Key: Value] { storage }

    /// How many entries are kept.
    @inlinable public var count: Int { storage.count }

    /// The value kept under `key`, live or not.
    @inlinable public subscript(_ key: Key) -> Value? { storage[key] }

    /// Keeps `value` under `key`, first making room when the dictionary is full: the entries not live at `now` go,
    /// then, if it is still full, all of them.
    /// - Returns: whether any entry was dropped to make room.
    @inlinable @discardableResult
    public mutating func insert(_ value: Value, for key: Key, now: Int64) -> Bool {
        var dropped = false
        if storage.count >= capacity {
            let isLive = self.isLive
            storage = storage.filter { isLive($0.value, now) }
            if storage.count >= capacity { storage.removeAll(keepingCapacity: true) }
            dropped = true
        }
        storage[key] = value
        return dropped
    }

    /// Drops the entry under `key`; the value it held, if any.
    @inlinable @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        storage.removeValue(forKey: key)
    }

    /// Drops every entry.
    @inlinable public mutating func removeAll() {
        storage.removeAll()
    }
}

extension ExpiringEntries: Sendable where Key: Sendable, Value: Sendable {}
