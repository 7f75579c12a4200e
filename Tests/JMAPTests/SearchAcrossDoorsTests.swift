import Foundation
import IMAP
import JSON
import Logging
import MIME
import MailDoorServer
import MailStore
import MailpitAPI
import PosternTestSupport
import Testing

@testable import IMAPServer

/// One search (issue 82): the same questions asked of one small corpus through JMAP's `Email/query` filter, Mailpit's
/// search syntax, IMAP `SEARCH` and the operator's search find the same messages, on both backends. The corpus hides
/// its words the ways mail does (a base64 UTF-8 body, a quoted-printable body with a soft line break inside a word,
/// RFC 2047 subjects in B and Q, an encoded display name), so a door that matched the raw bytes would miss them.
@Suite("One search: the same answers through JMAP, Mailpit, IMAP and the operator's search")
struct SearchAcrossDoorsTests {
    static let ada = JMAPServiceHarness.ada.mailbox.address

    /// The corpus, by name: each message as written on the wire.
    static let corpus: [(name: String, raw: String)] = [
        (
            "plain",
            "From: Plain Sender <plain@example.org>\r\nTo: \(ada)\r\nSubject: Quarterly report\r\n\r\n"
                + "The meeting is on Tuesday.\r\n"
        ),
        (
            "base64",
            "From: sender@example.org\r\nTo: \(ada)\r\nSubject: Parcel\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                + Data("Grüße aus Zürich: the parcel arrived.\r\n".utf8).base64EncodedString() + "\r\n"
        ),
        (
            "quotedPrintable",
            "From: sender@example.org\r\nTo: \(ada)\r\nSubject: Dessert\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
                + "Caf=C3=A9 cr=C3=A8me with pine=\r\napple.\r\n"
        ),
        (
            "subjectB",
            "From: sender@example.org\r\nTo: \(ada)\r\nSubject: =?UTF-8?B?"
                + Data("Rechnung für März".utf8).base64EncodedString() + "?=\r\n\r\nSee attached.\r\n"
        ),
        (
            "subjectQ",
            "From: sender@example.org\r\nTo: \(ada)\r\nSubject: =?ISO-8859-1?Q?Caf=E9_menu_update?=\r\n\r\n"
                + "New dishes.\r\n"
        ),
        (
            "displayName",
            "From: =?UTF-8?Q?Zo=C3=AB_Lambert?= <zoe@example.net>\r\nTo: \(ada)\r\nSubject: Hello\r\n\r\n"
                + "Just saying hi.\r\n"
        ),
    ]

    /// Where a question is asked: the body, the subject, the sender, or anywhere (each door's "text").
    enum Field: String, CaseIterable { case body, subject, from, text }

    /// The questions and the messages each must find. Words differ in ASCII case from the corpus on purpose.
    static let questions: [(field: Field, words: String, found: Set<String>)] = [
        (.body, "TUESDAY", ["plain"]),
        (.body, "zürich", ["base64"]),
        (.body, "Parcel Arrived", ["base64"]),
        (.body, "pineapple", ["quotedPrintable"]),
        (.body, "crème", ["quotedPrintable"]),
        (.subject, "rechnung", ["subjectB"]),
        (.subject, "März", ["subjectB"]),
        (.subject, "menu update", ["subjectQ"]),
        (.subject, "café", ["subjectQ"]),
        (.from, "Zoë", ["displayName"]),
        (.from, "LAMBERT", ["displayName"]),
        (.from, "plain sender", ["plain"]),
        (.text, "pineapple", ["quotedPrintable"]),
        (.text, "rechnung", ["subjectB"]),
        (.text, "zürich", ["base64"]),
        (.text, "lambert", ["displayName"]),
        (.body, "absent", []),
    ]

    @Test("each question finds the same messages through every door that can ask it", arguments: StorageBackend.allCases)
    func sameAnswers(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        var names: [String: String] = [:]
        for (index, message) in Self.corpus.enumerated() {
            let raw = Array(message.raw.utf8)
            let parsed = try MIMEParser.parse(raw)
            let id = try await harness.store.deliver(
                NewMailMessage(parsed, envelopeFrom: "sender@example.org", raw: raw),
                to: [.init(address: Self.ada, quota: 1_000_000)], folder: .inbox, now: 1_700_000_000 + Int64(index)
            )[0]
            names[id] = message.name
        }
        let imap = try await IMAPDoor(harness.store)
        for question in Self.questions {
            let label = "\(question.field) \"\(question.words)\""
            let jmap = try await jmap(harness, question.field, question.words)
            #expect(Set(jmap.compactMap { names[$0] }) == question.found, "JMAP \(label)")
            let imapFound = try await imap.search(question.field, question.words)
            #expect(Set(imapFound.compactMap { names[$0] }) == question.found, "IMAP \(label)")
            if let mailpit = try await mailpit(harness.store, question.field, question.words) {
                #expect(Set(mailpit.compactMap { names[$0] }) == question.found, "Mailpit \(label)")
            }
            if let operatorFound = try await operatorSearch(harness.store, question.field, question.words) {
                #expect(Set(operatorFound.compactMap { names[$0] }) == question.found, "operator \(label)")
            }
        }
    }

    /// `Email/query` with the filter condition of `field`.
    func jmap(_ harness: JMAPServiceHarness, _ field: Field, _ words: String) async throws -> [String] {
        let filter = String(decoding: JSONValue.object([(field.rawValue, .string(words))]).serialize(), as: UTF8.self)
        let responses = try await harness.api(
            "ada", ##"[["Email/query",{"accountId":"acct-ada","filter":\##(filter)},"q"]]"##)
        let response = try #require(responses.first?.arrayValue)
        #expect(response.first?.stringValue == "Email/query", "\(response)")
        return response[1]["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Mailpit's `GET /api/v1/search?query=`: `subject:"..."`, `from:"..."`, or the words alone (any field); nil
    /// for the body alone, which Mailpit's syntax cannot ask.
    func mailpit(_ store: MailStore, _ field: Field, _ words: String) async throws -> [String]? {
        let query: String
        switch field {
        case .body: return nil
        case .subject: query = "subject:\"\(words)\""
        case .from: query = "from:\"\(words)\""
        case .text: query = "\"\(words)\""
        }
        return try await store.listRecords(
            MailSelection(.address(Self.ada), MailpitSearch.filter(query), limit: 100)
        ).map(\.summary.id)
    }

    /// The operator's `GET /api/operator/messages?subject=&from=&text=` (its `text` is the body); nil for anywhere,
    /// which it cannot ask.
    func operatorSearch(_ store: MailStore, _ field: Field, _ words: String) async throws -> [String]? {
        let search: MailSearch
        switch field {
        case .body: search = MailSearch(text: words)
        case .subject: search = MailSearch(subject: words)
        case .from: search = MailSearch(from: words)
        case .text: return nil
        }
        return try await store.search(search, limit: 100).map(\.id)
    }

    /// An IMAP session of ada's with INBOX selected, whose commands are parsed from their text as a client sends it.
    struct IMAPDoor {
        let driver: IMAPConnectionDriver
        let store: MailStore

        init(_ store: MailStore) async throws {
            self.store = store
            driver = IMAPConnectionDriver(
                store: store, snapshots: IMAPSnapshotCache(capacity: 100), envelopes: IMAPEnvelopeCache(capacity: 100),
                signIn: AdaSignIn(), client: "127.0.0.1", now: { 1_800_000_000 },
                logger: Logger(label: "search-across-doors"), searchBudget: IMAPSearchBudget(limits: IMAPLimits()))
            _ = await driver.login(username: SearchAcrossDoorsTests.ada, password: AdaSignIn.password)
            let selected = await driver.run(try IMAPCommandParser.parse(Array("s SELECT INBOX".utf8), limits: IMAPLimits()))
            #expect(selected.status.kind == .ok)
        }

        /// `UID SEARCH [CHARSET UTF-8] <KEY> {n}\r\n<words>`: the ids of the messages it answers.
        func search(_ field: Field, _ words: String) async throws -> [String] {
            let key = ["body": "BODY", "subject": "SUBJECT", "from": "FROM", "text": "TEXT"][field.rawValue] ?? ""
            let charset = words.utf8.allSatisfy { $0 < 0x80 } ? "" : "CHARSET UTF-8 "
            let line = Array("u UID SEARCH \(charset)\(key) {\(words.utf8.count)}\r\n".utf8) + Array(words.utf8)
            let result = await driver.run(try IMAPCommandParser.parse(line, limits: IMAPLimits()))
            #expect(result.status.kind == .ok, "\(result.status)")
            var uids: [UInt32] = []
            for response in result.responses { if case .search(let found) = response { uids = found } }
            let entries = try await store.uidSnapshot(
                address: SearchAcrossDoorsTests.ada, folder: .inbox, now: 1_800_000_000
            ).entries
            let ids = Dictionary(uniqueKeysWithValues: entries.map { ($0.uid, $0.id) })
            return uids.compactMap { ids[$0] }
        }
    }

    /// Ada's password opens ada's mailbox; nothing else opens anything.
    struct AdaSignIn: MailDoorSignIn {
        static let password = "ada-imap-password"

        func signIn(username: String, password: String, client: String) async throws -> MailDoorSignInOutcome {
            guard username == SearchAcrossDoorsTests.ada, password == Self.password else { return .refused }
            return .signedIn(MailboxHolder(address: SearchAcrossDoorsTests.ada, quota: 1_000_000))
        }

        func signIn(username: String?, accessToken: String, client: String) async throws -> MailDoorSignInOutcome {
            .tokenRefused(.invalidToken)
        }
    }
}
