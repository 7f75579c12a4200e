import Synchronization

/// One value per database object, made on first use and shared by everything over that object (a change notifier, a
/// cache that notifications invalidate); an entry goes with its database.
public final class PerDatabase<Value: Sendable>: Sendable {
    private struct Entry: @unchecked Sendable {  // only read and written under the registry's lock
        weak var database: AnyObject?
        let value: Value
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
    private let make: @Sendable () -> Value

    /// - Parameter make: makes the value of a database seen for the first time.
    public init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// The value of `database`.
    public func of(_ database: AnyObject) -> Value {
        entries.withLock { entries in
            entries = entries.filter { $0.value.database != nil }
            let key = ObjectIdentifier(database)
            if let entry = entries[key], entry.database === database { return entry.value }
            let value = make()
            entries[key] = Entry(database: database, value: value)
            return value
        }
    }
}
