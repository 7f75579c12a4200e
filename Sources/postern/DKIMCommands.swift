import ArgumentParser
import Logging
import PosternApp
import PosternOperations

/// `postern dkim show|rotate`: the DKIM keys outbound mail is signed with, per domain.
struct DKIM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dkim", abstract: "Show or rotate a domain's DKIM signing keys.",
        subcommands: [Show.self, Rotate.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the DNS TXT records to publish for a domain's DKIM keys.",
            discussion: """
                For each key (RSA-2048, then Ed25519 per RFC 8463) one line with the record's name \
                (<selector>._domainkey.<domain>) and one with its value. The keys are made the first time a domain \
                needs them, so this works before any mail was sent. The RSA value is longer than 255 characters: \
                most DNS providers split it themselves; in a zone file write it as several quoted strings.
                """)
        @OptionGroup var target: DKIMDomainOptions

        func run() async throws {
            try await target.write(Operations.showDKIM(configuration:domain:logger:))
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a domain's DKIM keys with new ones under new selectors.",
            discussion: """
                The new keys sign from the next message on: publish the records printed at once (until receivers \
                see them, the new signatures do not verify). Keep the old records a few days, until mail signed with \
                the old keys has been delivered and checked.
                """)
        @OptionGroup var target: DKIMDomainOptions

        func run() async throws {
            try await target.write(Operations.rotateDKIM(configuration:domain:logger:))
        }
    }
}

/// What `dkim show` and `dkim rotate` take: the data options and the domain; each writes the lines its operation makes.
struct DKIMDomainOptions: ParsableArguments {
    @OptionGroup var options: DataOptions
    @Option(help: "The domain mail is sent from.")
    var domain: String

    /// Writes the lines `operation` makes of the loaded configuration and ``domain``.
    func write(_ operation: (PosternConfiguration, String, Logger) throws -> [String]) async throws {
        let (configuration, logger) = try await options.loadWithLogger()
        Terminal.write(lines: try operation(configuration, domain, logger))
    }
}
