import Testing

@testable import MailStore

/// The folder tree (decision 35), pure: paths, the inbox's any-case name, a trailing delimiter, orphans left out.
@Suite("Mail folders: the tree")
struct MailFolderTreeTests {
    static let a = MailFolder(rawValue: "aaaa")!
    static let b = MailFolder(rawValue: "bbbb")!
    static let c = MailFolder(rawValue: "cccc")!

    @Test("the six fixed folders are listed first, made ones by path, and an orphan is left out with its children")
    func listing() {
        let orphan = MailFolder(rawValue: "orphan")!
        let tree = MailFolderTree(made: [
            MailFolderEntry(folder: Self.b, name: "2026", parent: Self.a),
            MailFolderEntry(folder: Self.a, name: "Projects", parent: nil),
            MailFolderEntry(folder: Self.c, name: "Receipts", parent: .archive),
            MailFolderEntry(folder: orphan, name: "Lost", parent: MailFolder(rawValue: "gone")),
            MailFolderEntry(folder: MailFolder(rawValue: "under-orphan")!, name: "x", parent: orphan),
        ])
        #expect(tree.entries.map(\.name) == ["Inbox", "Drafts", "Sent", "Trash", "Junk", "Archive", "Receipts", "Projects", "2026"])
        #expect(tree.path(of: Self.b) == ["Projects", "2026"])
        #expect(tree.path(of: Self.c) == ["Archive", "Receipts"])
        #expect(tree.path(of: orphan) == nil)
        #expect(tree.children(of: Self.a) == [Self.b])
        #expect(tree.isWithin(Self.b, Self.a) && !tree.isWithin(Self.a, Self.b) && tree.isWithin(Self.a, Self.a))
    }

    @Test("paths: INBOX in any case at the top only, other names exactly")
    func lookup() {
        let tree = MailFolderTree(made: [
            MailFolderEntry(folder: Self.a, name: "Sub", parent: .inbox),
            MailFolderEntry(folder: Self.b, name: "inbox", parent: Self.a),
        ])
        #expect(tree.folder(at: ["iNbOx"]) == .inbox)
        #expect(tree.folder(at: ["INBOX", "Sub"]) == Self.a)
        #expect(tree.folder(at: ["INBOX", "sub"]) == nil, "names other than INBOX are case-sensitive")
        #expect(tree.folder(at: ["INBOX", "Sub", "inbox"]) == Self.b)
        #expect(tree.folder(at: ["INBOX", "Sub", "INBOX"]) == nil, "only the top-level INBOX matches in any case")
        #expect(tree.folder(at: ["Trash"]) == .trash)
        #expect(tree.folder(at: []) == nil)
    }

    @Test("components: the delimiter splits, a trailing one is dropped, an empty component is refused")
    func components() {
        #expect(MailFolderTree.components("a/b/c") == ["a", "b", "c"])
        #expect(MailFolderTree.components("a/") == ["a"])
        #expect(MailFolderTree.components("a//b") == nil)
        #expect(MailFolderTree.components("/a") == nil)
        #expect(MailFolderTree.components("") == nil)
        #expect(MailFolderTree.components("/") == nil)
    }

    @Test("keys: the six fixed ones have roles; a key is 1 to 64 lower-case letters, digits and hyphens")
    func keys() {
        #expect(MailFolder.fixed.map(\.role) == MailFolderRole.allCases)
        #expect(MailFolder(rawValue: "inbox") == .inbox)
        #expect(MailFolder(rawValue: "f0e1d2c3-0000-4000-8000-000000000000")?.isFixed == false)
        for bad in ["", "Inbox", "a b", "a/b", String(repeating: "a", count: 65)] {
            #expect(MailFolder(rawValue: bad) == nil, "\(bad)")
        }
        #expect(!MailFolder.made().isFixed)
    }

    @Test("names: not empty, no delimiter, no control character, no edge spaces, at most the byte cap")
    func names() throws {
        var limits = MailFolderLimits()
        limits.maxNameBytes = 6
        try limits.check(name: "Räume")
        for bad in ["", "a/b", "a\u{7}", " a", "a "] {
            #expect(throws: MailFolderError.name) { try limits.check(name: bad) }
        }
        #expect(throws: MailFolderError.limit(.nameLength)) { try limits.check(name: "Räumen") }
    }
}
