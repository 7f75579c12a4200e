/// One folder of an address's tree: its key, its name (the last component of its path) and its parent.
public struct MailFolderEntry: Sendable, Equatable {
    public var folder: MailFolder
    /// The last component of its path: never empty, never holding the delimiter.
    public var name: String
    /// Its parent; nil at the top (the six fixed folders are always at the top).
    public var parent: MailFolder?
    /// Where a client sorts it (JMAP's `sortOrder`, RFC 8621 §2): what a client set on a made folder,
    /// ``defaultSortOrder`` otherwise; the six fixed folders are ordered by the server.
    public var sortOrder: Int

    /// A made folder's order until a client sets one (migration 0082's default): after the six fixed ones (1 to 6).
    public static let defaultSortOrder = 100

    public init(folder: MailFolder, name: String, parent: MailFolder?, sortOrder: Int = Self.defaultSortOrder) {
        self.folder = folder
        self.name = name
        self.parent = parent
        self.sortOrder = sortOrder
    }
}

/// An address's folders as one tree (decision 35): the six fixed ones and those the address made. Pure: made from the
/// store's rows, asked by path or by key. Paths are names joined by ``delimiter``; the inbox's top-level name matches
/// in any case (`INBOX`, as IMAP asks), every other name exactly.
public struct MailFolderTree: Sendable, Equatable {
    /// The hierarchy delimiter.
    public static let delimiter: Character = "/"

    /// Every folder: the six fixed first, then the made ones by path.
    public private(set) var entries: [MailFolderEntry]

    /// The tree of the six fixed folders and `made` (a made folder whose parent is missing is left out, with its
    /// children: a tree read mid-change never shows an orphan).
    public init(made: [MailFolderEntry]) {
        var entries = MailFolder.fixed.map { MailFolderEntry(folder: $0, name: $0.role?.name ?? $0.rawValue, parent: nil) }
        var known = Set(MailFolder.fixed)
        var left = made.filter { !$0.folder.isFixed }
        while true {
            let ready = left.filter { $0.parent.map(known.contains) ?? true }
            guard !ready.isEmpty else { break }
            entries += ready
            known.formUnion(ready.map(\.folder))
            left.removeAll { known.contains($0.folder) }
        }
        self.entries = entries
        let paths = Dictionary(uniqueKeysWithValues: entries.map { ($0.folder, path(of: $0.folder) ?? []) })
        let fixedCount = MailFolder.fixed.count
        self.entries = Array(entries[..<fixedCount])
            + entries[fixedCount...].sorted { (paths[$0.folder] ?? []).lexicographicallyPrecedes(paths[$1.folder] ?? []) }
    }

    /// The entry of `folder`; nil when the address has no such folder.
    public func entry(_ folder: MailFolder) -> MailFolderEntry? {
        entries.first { $0.folder == folder }
    }

    /// The names from the top down to `folder`; nil when the address has no such folder.
    public func path(of folder: MailFolder) -> [String]? {
        var names: [String] = []
        var next: MailFolder? = folder
        while let current = next {
            guard let entry = entry(current), names.count <= entries.count else { return nil }
            names.insert(entry.name, at: 0)
            next = entry.parent
        }
        return names
    }

    /// The full name of `folder`: its path joined by the delimiter, the inbox's top component as `INBOX` (the name a
    /// subscription keeps); nil when the address has no such folder.
    public func fullName(of folder: MailFolder) -> String? {
        path(of: folder).map(Self.fullName)
    }

    /// `path` joined by the delimiter, a top component that spells INBOX in any case made `INBOX`.
    public static func fullName(_ path: [String]) -> String {
        var path = path
        if let first = path.first, first.uppercased() == "INBOX" { path[0] = "INBOX" }
        return path.joined(separator: String(delimiter))
    }

    /// The folder named `name` directly under `parent` (nil: at the top).
    public func child(named name: String, of parent: MailFolder?) -> MailFolder? {
        entries.first { entry in
            entry.parent == parent
                && (entry.name == name || parent == nil && entry.folder == .inbox && name.uppercased() == "INBOX")
        }?.folder
    }

    /// The folder at `path`; nil when any component is missing.
    public func folder(at path: [String]) -> MailFolder? {
        guard !path.isEmpty else { return nil }
        var current: MailFolder?
        for name in path {
            guard let found = child(named: name, of: current) else { return nil }
            current = found
        }
        return current
    }

    /// The folders directly under `folder`.
    public func children(of folder: MailFolder) -> [MailFolder] {
        entries.filter { $0.parent == folder }.map(\.folder)
    }

    /// Whether `folder` is `ancestor` or lies under it.
    public func isWithin(_ folder: MailFolder, _ ancestor: MailFolder) -> Bool {
        var next: MailFolder? = folder
        var steps = 0
        while let current = next, steps <= entries.count {
            if current == ancestor { return true }
            next = entry(current)?.parent
            steps += 1
        }
        return false
    }

    /// `path` split at the delimiter, a trailing delimiter dropped (RFC 9051 §6.3.4: `CREATE a/` makes `a`); nil
    /// when a component is empty.
    public static func components(_ path: String) -> [String]? {
        var text = Substring(path)
        if text.last == delimiter { text = text.dropLast() }
        let parts = text.split(separator: delimiter, omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        return parts
    }
}
