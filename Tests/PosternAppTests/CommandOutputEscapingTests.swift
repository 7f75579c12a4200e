import Foundation
import Logging
import MIME
import MailStore
import PosternTestSupport
import SignInProviders
import Testing

@testable import PosternApp
@testable import PosternOperations

/// Issue 66 item 3: text someone else chose (a provider's `sub` and issuer, a message's subject and sender) is stored
/// as it came, and every command that shows it writes it through the command line's one terminal-safe writer: an
/// escape sequence or a line feed comes out as `\u{1B}`, `\u{0A}`, never raw. Run as an operator runs them, the
/// binary over a data directory. The escaping is the writer's, whichever database the text came from: SQLite here.
@Suite("postern: every listing writes stored text escaped")
struct CommandOutputEscapingTests {
    /// A title change, a screen clear and a forged line, as a provider or a sender may send them.
    static let hostile = "sub\u{1B}]0;pwned\u{07}\u{1B}[2J\nforged line\u{202E}"

    static func run(_ arguments: [String], dataDirectory: String) throws -> (status: Int32, stdout: [UInt8]) {
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments =
            arguments + [
                "--config", ServeProcessTests.repository.appendingPathComponent("config/postern.env").path,
                "--data-dir", dataDirectory,
            ]
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_LOG_LEVEL"] = "error"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, Array(stdout))
    }

    @Test("owner show, pro list and show, mail list and show, audit: no control character reaches the terminal")
    func listingsEscape() async throws {
        let configuration = TestServer.configuration(.sqlite)
        let directory = configuration.storage.dataDirectory
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logger = Logger(label: "command-output-escaping")
        _ = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        _ = try await Operations.createProUser(
            configuration: configuration, email: "pro@example.com", password: "pro-password-1", maxAccounts: nil,
            logger: logger)
        let database = try Operations.migratedDatabase(configuration, logger: logger)
        let identities = SignInIdentityStore(database: database, clock: { 1_800_000_000 })
        let adaID = try #require(
            try await Operations.showOwner(configuration: configuration, email: "ada@example.com", logger: logger)?
                .first?.split(separator: " ").first.map(String.init))
        let proID = try #require(
            try await Operations.showProUser(configuration: configuration, email: "pro@example.com", logger: logger)?
                .first?.split(separator: " ").first.map(String.init))
        for (surface, account) in [(SignInProvider.Surface.owners, adaID), (.pro, proID)] {
            #expect(
                try await identities.link(
                    surface: surface, issuer: "https://sso.example/\u{1B}[31m", subject: Self.hostile, provider: "corp",
                    account: account, email: nil) == .linked)
        }
        let raw = Array(
            "From: =?utf-8?q?Mallory=1B=5B2J?= <m@example.org>\r\nTo: x@example.org\r\nSubject: =?utf-8?q?hi=1B]0;pwned=07=0Aforged?=\r\n\r\nbody\u{1B}[2J\r\n"
                .utf8)
        let messageID = try await MailStore(database: database).deliver(
            NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: "m@example.org", raw: raw),
            to: [MailStore.Recipient(address: Operations.catchAllAddress, quota: 1 << 20)], folder: .inbox,
            now: 1_800_000_000)[0]
        database.close()

        for arguments in [
            ["owner", "list"], ["owner", "show", "--email", "ada@example.com"], ["pro", "list"],
            ["pro", "show", "--email", "pro@example.com"], ["mail", "list"], ["mail", "show", messageID],
            ["audit"], ["audit", "--json"],
        ] {
            let (status, stdout) = try Self.run(arguments, dataDirectory: directory)
            #expect(status == 0, "\(arguments)")
            let text = String(decoding: stdout, as: UTF8.self)
            #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" }, "\(arguments): \(text)")
            #expect(!text.contains("\nforged"), "\(arguments): \(text)")
        }
        // Where the text is shown, it is shown escaped, whole.
        let owner = String(decoding: try Self.run(["owner", "show", "--email", "ada@example.com"], dataDirectory: directory).stdout, as: UTF8.self)
        #expect(owner.contains(#"sub\u{1B}]0;pwned\u{07}\u{1B}[2J\u{0A}forged line\u{202E}"#), "\(owner)")
        #expect(owner.contains(#"https://sso.example/\u{1B}[31m"#), "\(owner)")
        let pro = String(decoding: try Self.run(["pro", "list"], dataDirectory: directory).stdout, as: UTF8.self)
        #expect(pro.contains(#"sub\u{1B}]0;pwned"#), "\(pro)")
        let shown = String(decoding: try Self.run(["mail", "show", messageID], dataDirectory: directory).stdout, as: UTF8.self)
        #expect(shown.contains(#"Subject: hi\u{1B}]0;pwned\u{07}\u{0A}forged"#), "\(shown)")
        #expect(shown.contains(#"body\u{1B}[2J"#), "\(shown)")
        // Into a pipe, `mail show --raw` writes the message's exact bytes (`> m.eml`); on a terminal, escaped.
        let exact = try Self.run(["mail", "show", "--raw", messageID], dataDirectory: directory).stdout
        #expect(exact.count >= raw.count && Array(exact.suffix(raw.count)) == raw)
    }
}
