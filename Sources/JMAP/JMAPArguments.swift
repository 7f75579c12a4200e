import Foundation
import JSON

/// A method's arguments with typed accessors that answer `invalidArguments` on a wrong type.
struct JMAPArguments: Sendable {
    let pairs: [(String, JSONValue)]

    subscript(name: String) -> JSONValue? {
        for (key, value) in pairs where key == name { return value }
        return nil
    }

    /// The value, nil when absent or JSON null.
    func present(_ name: String) -> JSONValue? {
        guard let value = self[name], value != .null else { return nil }
        return value
    }

    func string(_ name: String) throws(MethodError) -> String? {
        guard let value = present(name) else { return nil }
        guard let text = value.stringValue else { throw .invalidArguments("`\(name)` must be a string.") }
        return text
    }

    func bool(_ name: String, default fallback: Bool) throws(MethodError) -> Bool {
        guard let value = present(name) else { return fallback }
        guard let flag = value.boolValue else { throw .invalidArguments("`\(name)` must be true or false.") }
        return flag
    }

    func int(_ name: String) throws(MethodError) -> Int? {
        guard let value = present(name) else { return nil }
        guard let number = value.intValue, let int = Int(exactly: number) else {
            throw .invalidArguments("`\(name)` must be an integer.")
        }
        return int
    }

    func strings(_ name: String) throws(MethodError) -> [String]? {
        guard let value = present(name) else { return nil }
        guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
            throw .invalidArguments("`\(name)` must be an array of strings.")
        }
        return list.compactMap(\.stringValue)
    }

    func object(_ name: String) throws(MethodError) -> [(String, JSONValue)]? {
        guard let value = present(name) else { return nil }
        guard let object = value.objectValue else { throw .invalidArguments("`\(name)` must be an object.") }
        return object
    }

    /// `accountId`, which must name the token's account; on the OAuth path it may be left out and then means it.
    func requireAccount(_ account: JMAPAccount) throws(MethodError) {
        guard let id = try string("accountId") else {
            if account.impliesAccountID { return }
            throw .invalidArguments("`accountId` is required.")
        }
        guard id == account.id else { throw .accountNotFound }
    }
}
