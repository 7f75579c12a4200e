import ArgumentParser
import PosternApp

/// `postern web link`: the web inbox's operator side.
struct Web: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The web inbox (/inbox): one-time links that open a mailbox without a password.",
        subcommands: [Link.self])

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a link (ten minutes, single use) that opens a local mailbox in the web inbox.")
        @OptionGroup var options: ConfigurationOptions
        @Option(help: "The mailbox's address (an agent inbox or a Mail.td account).") var address: String

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            do {
                print(try await Operations.webInboxLink(configuration: configuration, address: address, logger: logger))
            } catch WebInboxLinkError.notLocal {
                throw CommandFailure("no local mailbox has address '\(address)'")
            }
        }
    }
}
